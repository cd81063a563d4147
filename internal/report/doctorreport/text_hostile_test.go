package doctorreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/report"
)

// TestTextNeutralisesControls: events, statuses and names come from the
// cluster; an escape sequence in any of them reaches the terminal as
// visible text, never as an escape.
func TestTextNeutralisesControls(t *testing.T) {
	const h = "x\x1b]52;c;aGk=\x07\x1b[2J\u009b1m\r\nforged\u202e"
	now := time.Now()
	d := doctor.Diagnosis{Pod: doctor.PodRef{Namespace: h, Name: h}, Node: h, NodeBuild: h, Owner: h, Cause: h, Summary: h,
		Evidence:    []doctor.Evidence{{Source: h, Reason: h, Container: h, Message: h, Count: 2, Time: &now}},
		Explanation: h, Steps: []string{h}, Commands: []doctor.Command{{Shell: h, Where: h, Line: h}}}
	var b bytes.Buffer
	if err := Text(&b, &doctor.Report{Server: h, Diagnoses: []doctor.Diagnosis{d}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\r\u009b\u202e") || strings.Contains(out, "\nforged") {
		t.Errorf("text output carries a control character:\n%q", out)
	}
	if want := report.Clean(h); !strings.Contains(out, want) {
		t.Errorf("text output lacks the escaped form %q", want)
	}
}
