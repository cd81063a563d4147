package doctor

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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

// TestEvictionQuotesStats: an evicted pod's diagnosis quotes the node's
// memory from its kubelet's stats.
func TestEvictionQuotesStats(t *testing.T) {
	t.Parallel()
	p := pod("1", "win-1", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory. "})
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{corev1.LabelOSStable: "windows"}},
		Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Gi")}, Allocatable: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("14Gi")}}}
	ws, avail := uint64(15<<30), uint64(300<<20)
	s := &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{p}, Nodes: []*corev1.Node{node},
		Kubelets: []*live.Kubelet{{Node: "win-1", Stats: &live.NodeStats{MemoryWorkingSetBytes: &ws, MemoryAvailableBytes: &avail}}}}
	rep, err := Diagnose(t.Context(), s, Options{Now: now, NoSimulation: true})
	if err != nil {
		t.Fatal(err)
	}
	var stats []string
	for _, d := range rep.Diagnoses {
		for _, e := range d.Evidence {
			if d.Cause == Evicted.ID && e.Source == "stats" {
				stats = append(stats, e.Message)
			}
		}
	}
	want := []string{"Windows node win-1: working set 15.0Gi is above allocatable 14.0Gi of capacity 16.0Gi: 1.0Gi of the 2.0Gi reserved for the OS and node services is taken; 0.3Gi available, below the 500Mi hard eviction threshold"}
	if diff := cmp.Diff(want, stats); diff != "" {
		t.Errorf("stats evidence of the eviction (-want +got):\n%s", diff)
	}
}
