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

// notObject is every front-end's policy for YAML that is not a Kubernetes
// object (a Helm values.yaml, a CI file): a load-error finding at warning
// (or as the config grades load-error), whose exit code --fail-on decides,
// never a tool failure. lint's engine applies the same policy
// (engine.loadError); fix, simulate and images use this. ok is false for
// any other problem, and the finding is dropped when the config disables
// load-error.
func notObject(set *rule.Settings, e *manifest.Error) (f rule.Finding, report, ok bool) {
	if !errors.Is(e, manifest.ErrNotObject) {
		return rule.Finding{}, false, false
	}
	r := set.Apply(rules.LoadError)
	if r == nil {
		return rule.Finding{}, false, true
	}
	f = rule.Finding{Rule: r.ID, Severity: min(r.Severity, rule.Warning), Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
	f.Severity = r.SeverityOf(f)
	return f, true, true
}

// chartNote is every front-end's policy for a chart's note (a template
// with Windows markers the values left unrendered): a finding of
// windows-template-not-rendered, as lint's engine reports it
// (engine.note), dropped when the config disables the rule. ok is false
// for anything else.
func chartNote(set *rule.Settings, e *manifest.Error) (f rule.Finding, report, ok bool) {
	if !errors.Is(e, chart.ErrWindowsNotRendered) {
		return rule.Finding{}, false, false
	}
	r := set.Apply(rules.WindowsTemplateNotRendered)
	if r == nil {
		return rule.Finding{}, false, true
	}
	f = rule.Finding{Rule: r.ID, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
	f.Severity = r.SeverityOf(f)
	return f, true, true
}

// inputFinding is chartNote's finding, or notObject's.
func inputFinding(set *rule.Settings, e *manifest.Error) (f rule.Finding, report, ok bool) {
	if f, report, ok := chartNote(set, e); ok {
		return f, report, ok
	}
	return notObject(set, e)
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
