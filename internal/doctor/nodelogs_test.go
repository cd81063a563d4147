package doctor

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/live"
)

// TestNodeCausesFromLogsAlone: with no pod unhealthy, a node's log lines
// name the cause, quoted with their timestamps, newest last.
func TestNodeCausesFromLogsAlone(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 3, 58, 1, 0, time.UTC)
	win := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{corev1.LabelOSStable: "windows"}},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KernelVersion: "10.0.20348.2966"}}}
	line := `E1127 03:58:01.000000    5120 proxier.go:1480] "ClusterIP policy creation failed" err="x" clusterIP="10.96.0.10"`
	s := &live.Snapshot{Server: "v1.36.3", Nodes: []*corev1.Node{win}, KubeletAccess: &live.KubeletAccess{Path: "direct", Nodes: 1},
		Kubelets: []*live.Kubelet{{Node: "win-1", Logs: []live.LogLine{
			{Service: "kubelet", Time: at.Add(-time.Minute), Text: "I1127 03:57:01.000000 1 kubelet.go:1] routine"},
			{Service: "kube-proxy", Time: at, Text: line},
		}}}}
	rep, err := Diagnose(context.Background(), s, Options{NoSimulation: true, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Nodes != 1 || rep.Unhealthy != 0 || len(rep.Diagnoses) != 1 {
		t.Fatalf("want one node diagnosis, got nodes=%d unhealthy=%d %+v", rep.Nodes, rep.Unhealthy, rep.Diagnoses)
	}
	d := rep.Diagnoses[0]
	if d.Cause != HNSLoadBalancerFailing.ID || d.Node != "win-1" || d.NodeBuild != "10.0.20348" {
		t.Errorf("diagnosis %s on %s (%s)", d.Cause, d.Node, d.NodeBuild)
	}
	want := []Evidence{{Source: "log", Reason: "kube-proxy", Message: line, Time: &at}}
	if diff := cmp.Diff(want, d.Evidence, cmp.AllowUnexported(Evidence{})); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if KeepLogLine("kubelet", "I1127 03:57:01.000000 1 kubelet.go:1] routine") || !KeepLogLine("kube-proxy", line) {
		t.Error("KeepLogLine keeps what no cause matches, or drops what one does")
	}
}
