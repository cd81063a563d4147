package fidelity

import (
	"flag"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

var (
	placementLargeFlag = flag.Bool("placement.large", true, "run the large placement case (150 nodes, node sampling)")
	placementLargeRuns = flag.Int("placement.large-runs", 3, "runs of the large placement case on the real scheduler")
	placementLargeK    = flag.Int("placement.large-k", 100, "winkube runs with seeds 1..k for the large placement case, whose ties reach most nodes")
)

// TestLargePlacementCase checks the large case's shape: above the
// sampling threshold, both OSes and zones, 100 to 300 replicas each.
func TestLargePlacementCase(t *testing.T) {
	t.Parallel()
	pc := LargePlacementCase()
	count := map[string]int{}
	for _, n := range pc.Nodes {
		count[n.Labels[corev1.LabelOSStable]]++
		count[n.Labels[corev1.LabelOSStable]+"/"+n.Labels[labelZone]]++
	}
	if count["linux"] != largeLinuxNodes || count["windows"] != largeWindowsNodes {
		t.Errorf("nodes by OS %v, want %d Linux and %d Windows", count, largeLinuxNodes, largeWindowsNodes)
	}
	for _, k := range []string{"linux/z1", "linux/z2", "windows/z1", "windows/z2"} {
		if count[k] < 10 {
			t.Errorf("%d nodes in %s, want 10 or more (all: %v)", count[k], k, count)
		}
	}
	for _, w := range pc.Workloads {
		if r := replicasOf(w); r < 100 || r > 300 {
			t.Errorf("%s has %d replicas, want 100 to 300", w.GetName(), r)
		}
	}
	if !pc.FullScoring {
		t.Error("the large case must run winkube with FullScoring")
	}
}

// TestPlacementLarge runs LargePlacementCase on the real scheduler
// -placement.large-runs times and through winkube with FullScoring
// (deterministic and seeds 1..k), comparing per node as TestPlacement does
// (a node no seeded run disagrees on must match exactly, others lie within
// the seeded runs' range), and logs the per-zone and per-OS totals.
func TestPlacementLarge(t *testing.T) {
	if !*placementLargeFlag {
		t.Log("-placement.large=false: the large placement case is not run")
		return
	}
	start := time.Now()
	cl := StartPlacementCluster(t, "")
	pc := LargePlacementCase()
	ctx := t.Context()
	var reals []*RealPlacement
	for run := range max(1, *placementLargeRuns) {
		real, err := cl.Run(ctx, pc)
		if err != nil {
			t.Fatalf("run %d on the real cluster: %v", run+1, err)
		}
		for _, w := range real.Workloads {
			t.Logf("real run %d: %s: all %d pods bound or pending %s after creation", run+1, w.Name, w.Replicas, w.Took.Round(time.Millisecond))
		}
		reals = append(reals, real)
	}
	same := true
	for _, r := range reals[1:] {
		same = same && r.String() == reals[0].String()
	}
	t.Logf("real scheduler gave the same per-node counts in %d runs: %v", len(reals), same)
	predStart := time.Now()
	pred, err := Predict(ctx, pc, reals[0].Nodes, *placementLargeK)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("winkube (FullScoring, deterministic and %d seeds) took %s", *placementLargeK, time.Since(predStart).Round(time.Millisecond))
	zone := func(n *corev1.Node) string { return n.Labels[labelZone] }
	osOf := func(n *corev1.Node) string { return n.Labels[corev1.LabelOSStable] }
	for run, real := range reals {
		t.Logf("real run %d, per zone:\n%s", run+1, renderGroups("zone", GroupTotals(pc, real, pred, zone)))
		t.Logf("real run %d, per OS:\n%s", run+1, renderGroups("os", GroupTotals(pc, real, pred, osOf)))
		for _, wc := range ComparePlacement(pc, real, pred, false) {
			bad := 0
			for _, r := range wc.Rows {
				if !r.OK {
					bad++
				}
			}
			if wc.Failed() {
				t.Errorf("real run %d: winkube's placement differs from the real scheduler's on %d nodes:\n%s", run+1, bad, wc)
			} else {
				t.Logf("real run %d: %s", run+1, strings.TrimSuffix(wc.String(), "\n"))
			}
		}
	}
	t.Logf("large case took %s", time.Since(start).Round(time.Millisecond))
}
