package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/chart"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// inputRules are every front-end's policy for the input problems that are
// a rule's finding and never a tool failure: YAML that is not a Kubernetes
// object (a Helm values.yaml, a CI file) is load-error at warning at most,
// and a chart's template with Windows markers that the values left
// unrendered is windows-template-not-rendered. lint's engine applies the
// same policy (engine.loadError, engine.note); fix, simulate and images
// use inputFinding.
var inputRules = []struct {
	class error
	rule  *rule.Rule
	max   rule.Severity
}{
	{manifest.ErrNotObject, rules.LoadError, rule.Warning},
	{chart.ErrWindowsNotRendered, rules.WindowsTemplateNotRendered, rule.Error},
}

// inputFinding is e's finding under inputRules, graded as the config
// grades its rule, whose exit code --fail-on decides; report is false when
// the config disables the rule. ok is false for any other problem.
func inputFinding(set *rule.Settings, e *manifest.Error) (f rule.Finding, report, ok bool) {
	for _, in := range inputRules {
		if !errors.Is(e, in.class) {
			continue
		}
		r := set.Apply(in.rule)
		if r == nil {
			return rule.Finding{}, false, true
		}
		f = rule.Finding{Rule: r.ID, Severity: min(r.Severity, in.max), Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
		f.Severity = r.SeverityOf(f)
		return f, true, true
	}
	return rule.Finding{}, false, false
}

// warnInput prints input findings on stderr, one line each as lint prints
// them, unless quiet.
func warnInput(w io.Writer, quiet bool, fs []rule.Finding) {
	if quiet {
		return
	}
	for _, f := range fs {
		fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
		if f.Hint != "" {
			fmt.Fprintf(w, "    hint: %s\n", f.Hint)
		}
	}
}
