package report

import (
	"bytes"
	"testing"

	"github.com/winkube/winkube/internal/rule"
)

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, data, property string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"os: windows, NoSchedule", "os: windows, NoSchedule", "os%3A windows%2C NoSchedule"},
		{"%0A", "%250A", "%250A"}, // an escape in the input is not decoded by the runner
	} {
		if got := escapeData(tc.in); got != tc.data {
			t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := escapeProperty(tc.in); got != tc.property {
			t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.property)
		}
	}
}

func TestGitHubCommands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    rule.Finding
		want string
	}{
		{"error with position", rule.Finding{Rule: "r", Severity: rule.Error, File: "a/b.yaml", Line: 3, Column: 5, Message: "bad"},
			"::error file=a/b.yaml,line=3,col=5,title=r::bad\n"},
		{"warning without column", rule.Finding{Rule: "r", Severity: rule.Warning, File: "./x.yaml", Line: 2, Message: "m"},
			"::warning file=x.yaml,line=2,title=r::m\n"},
		{"info without position", rule.Finding{Rule: "r", Severity: rule.Info, File: "x.yaml", Message: "m"},
			"::notice file=x.yaml,title=r::m\n"},
		{"no file", rule.Finding{Rule: "r", Severity: rule.Info, Message: "m"},
			"::notice title=r::m\n"},
		{"hint on its own line", rule.Finding{Rule: "r", Severity: rule.Error, File: "x,y:z.yaml", Line: 1, Column: 1, Message: "m", Hint: "h"},
			"::error file=x%2Cy%3Az.yaml,line=1,col=1,title=r::m%0Ahint: h\n"},
		{"stdin", rule.Finding{Rule: "r", Severity: rule.Warning, File: "<stdin>", Line: 12, Column: 3, Message: "m"},
			"::warning title=r::<stdin>:12:3: m\n"},
		{"suppressed", rule.Finding{Rule: "r", Severity: rule.Error, File: "x.yaml", Message: "m", Suppressed: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := GitHub(&b, &Report{Findings: []rule.Finding{tc.f}}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("GitHub() = %q, want %q", b.String(), tc.want)
			}
		})
	}
}
