package auditreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
)

// TestTextNeutralisesControls: the server version, workload names, notes
// and finding messages come from the cluster; escape sequences in them
// reach the terminal as visible text.
func TestTextNeutralisesControls(t *testing.T) {
	const h = "v\x1b]0;title\x07\x1b[2J\u009b1m\r\nforged"
	res := &audit.Result{Server: h, Headroom: []audit.Headroom{{Workload: h, MoreFit: 1}}, Notes: []string{h},
		Findings: []rule.Finding{{Rule: audit.PermissionDenied.ID, Severity: rule.Warning, Message: h, Hint: h, File: h}},
		Rules:    []*rule.Rule{audit.PermissionDenied}}
	res.Areas = audit.Areas(res)
	var b bytes.Buffer
	if err := Text(&b, res, "test", report.Options{}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07\r\u009b") || strings.Contains(out, "\nforged") {
		t.Errorf("text output carries a control character:\n%q", out)
	}
}
