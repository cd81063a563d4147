package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// noteClass names its rule as chart.ErrWindowsNotRendered does.
type noteClass string

func (c noteClass) Error() string  { return string(c) }
func (c noteClass) RuleID() string { return string(c) }

// TestNoteIsItsRulesFinding: an input note whose class names a rule is
// that rule's finding, at its configured severity, never load-error's;
// with the rule disabled it is dropped, and other input problems stay
// load-errors.
func TestNoteIsItsRulesFinding(t *testing.T) {
	t.Parallel()
	notes := &rule.Rule{ID: "chart-note", Severity: rule.Warning}
	raised := &rule.Rule{ID: "chart-note", Severity: rule.Error, Configured: rule.Error}
	errs := []*manifest.Error{
		{File: "c/templates/ds-windows.yaml", Line: 2, Msg: "rendered nothing", Hint: "--set x=true", Class: noteClass("chart-note")},
		{File: "c/values.yaml", Msg: "bad", Class: manifest.ErrSyntax},
	}
	type got struct {
		Rule     string
		Severity rule.Severity
		File     string
		Line     int
		Hint     string
	}
	tests := []struct {
		name  string
		rules []*rule.Rule
		want  []got
	}{
		{"enabled", []*rule.Rule{loadError, notes}, []got{{"chart-note", rule.Warning, "c/templates/ds-windows.yaml", 2, "--set x=true"}, {engine.LoadErrorID, rule.Error, "c/values.yaml", 0, ""}}},
		{"configured", []*rule.Rule{loadError, raised}, []got{{"chart-note", rule.Error, "c/templates/ds-windows.yaml", 2, "--set x=true"}, {engine.LoadErrorID, rule.Error, "c/values.yaml", 0, ""}}},
		{"disabled", []*rule.Rule{loadError}, []got{{engine.LoadErrorID, rule.Error, "c/values.yaml", 0, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := engine.RunResolved(t.Context(), nil, errs, engine.Options{Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			var out []got
			for _, f := range res.Findings {
				out = append(out, got{f.Rule, f.Severity, f.File, f.Line, f.Hint})
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
