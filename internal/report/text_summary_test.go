package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
)

// A hint shared by many findings is printed once, with its count; rarer
// hints stay under their finding; a table counts findings per rule.
func TestTextRepeatedHintsAndRuleTable(t *testing.T) {
	t.Parallel()
	var fs []rule.Finding
	for _, line := range []int{1, 2, 3} {
		fs = append(fs, rule.Finding{Rule: "a-rule", Severity: rule.Warning, File: "m.yaml", Line: line, Message: "m", Hint: "shared hint"})
	}
	fs = append(fs, rule.Finding{Rule: "b-rule", Severity: rule.Error, File: "m.yaml", Line: 9, Message: "n", Hint: "own hint"})
	var b bytes.Buffer
	if err := Text(&b, &Report{Findings: fs, Files: 1, Objects: 1}, Options{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"m.yaml:1: warning: m [a-rule]",
		"m.yaml:2: warning: m [a-rule]",
		"m.yaml:3: warning: m [a-rule]",
		"m.yaml:9: error: n [b-rule]",
		"    hint: own hint",
		"hint: shared hint (3 findings of a-rule)",
		"",
		"rule    errors  warnings  info",
		"a-rule       0         3     0",
		"b-rule       1         0     0",
		"1 error, 3 warnings, 0 info in 1 object (1 file)",
		"",
	}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text report (-want +got):\n%s", diff)
	}
}
