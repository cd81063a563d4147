package doctorreport

import (
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/live"
)

// TestNodeDiagnosisText: a node diagnosis is headed by its node, and the
// summary says how the kubelets were read.
func TestNodeDiagnosisText(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 3, 58, 1, 0, time.UTC)
	rep := &doctor.Report{Checked: 3, Nodes: 1, Kubelets: &live.KubeletAccess{Path: "proxy", Nodes: 2}, Diagnoses: []doctor.Diagnosis{{Node: "win-1", NodeBuild: "10.0.20348", State: "node", Cause: doctor.SourceVIPProblem.ID,
		Summary: "node win-1: x", Evidence: []doctor.Evidence{{Source: "log", Reason: "kube-proxy", Message: "source-vip flag not set", Time: &at}}}}}
	var b strings.Builder
	if err := Text(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"node win-1 (Windows 10.0.20348) [source-vip-problem]\n",
		"    - log kube-proxy at 2026-11-27T03:58:01Z: source-vip flag not set\n",
		"read the kubelets of 2 node(s) through the API server's node proxy; 1 node(s) with a cause in their logs\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
