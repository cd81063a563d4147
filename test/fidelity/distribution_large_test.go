package fidelity

import (
	"flag"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/simulate"
)

var (
	placementLargeFlag = flag.Bool("placement.large", true, "run the large placement case (150 nodes, node sampling)")
	placementLargeRuns = flag.Int("placement.large-runs", 3, "runs of the large placement case on the real scheduler")
	placementLargeK    = flag.Int("placement.large-k", 1000, "winkube runs with seeds 1..k for the large placement case, whose ties and parallel filters reach most nodes (100 seeds missed outcomes the real scheduler reached in 1 run of 4)")
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

// TestPlacementLarge runs LargePlacementCase on the real scheduler and
// through winkube with FullScoring (deterministic and seeds 1..k), twice:
//
//   - parallelism-1: kube-scheduler with parallelism 1 checks the nodes one
//     by one from nextStartNodeIndex, so it is deterministic, and winkube's
//     deterministic run must equal it on every node, in every run: this
//     holds the sampling, the rotating start and the heap-root tie rule to
//     the real scheduler exactly.
//   - default-parallelism: the shipped parallelism (16) checks nodes
//     concurrently, so which nodes a search that stops early finds, and
//     the order in which tied nodes reach the score heap, are whatever the
//     checks' interleaving makes them. winkube's seeded runs draw such
//     interleavings (simulate's racedOrder). Each node's real count must
//     lie within the k seeded runs' range, or equal the deterministic one
//     where they all agree, and so must the per-zone and per-OS totals.
func TestPlacementLarge(t *testing.T) {
	if !*placementLargeFlag {
		t.Log("-placement.large=false: the large placement case is not run")
		return
	}
	start := time.Now()
	pc := LargePlacementCase()
	t.Run("parallelism-1", func(t *testing.T) {
		reals, pred := runLarge(t, pc, 1, max(2, *placementLargeRuns-1), 0)
		for run, real := range reals[1:] {
			if real.String() != reals[0].String() {
				t.Errorf("real run %d differs from run 1 with parallelism 1, which is deterministic:\n%s\nrun 1:\n%s", run+2, real, reals[0])
			}
		}
		compareLarge(t, pc, reals, pred, true)
	})
	t.Run("default-parallelism", func(t *testing.T) {
		reals, pred := runLarge(t, pc, 0, *placementLargeRuns, *placementLargeK)
		same := true
		for _, r := range reals[1:] {
			same = same && r.String() == reals[0].String()
		}
		t.Logf("real scheduler (parallelism 16) gave the same per-node counts in %d runs: %v", len(reals), same)
		compareLarge(t, pc, reals, pred, false)
	})
	t.Logf("large case took %s", time.Since(start).Round(time.Millisecond))
}

// runLarge starts a placement cluster with the given scheduler parallelism
// (0: the default), runs the case on it runs times and predicts it,
// deterministically and with seeds 1..k.
func runLarge(t *testing.T, pc *PlacementCase, parallelism, runs, k int) ([]*RealPlacement, *Predictions) {
	cl := StartPlacementCluster(t, "", parallelism)
	cl.FreshScheduler = true
	ctx := t.Context()
	var reals []*RealPlacement
	for run := range max(1, runs) {
		real, err := cl.Run(ctx, pc)
		if err != nil {
			t.Fatalf("run %d on the real cluster: %v", run+1, err)
		}
		for _, w := range real.Workloads {
			t.Logf("real run %d: %s: all %d pods bound or pending %s after creation", run+1, w.Name, w.Replicas, w.Took.Round(time.Millisecond))
		}
		reals = append(reals, real)
	}
	predStart := time.Now()
	pred, err := Predict(ctx, pc, reals[0].Nodes, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("winkube (FullScoring, deterministic and %d seeds) took %s", k, time.Since(predStart).Round(time.Millisecond))
	return reals, pred
}

// compareLarge holds every real run to the predictions: its per-zone and
// per-OS totals (checkLargeGroups) and each node (ComparePlacement, exact
// or not).
func compareLarge(t *testing.T, pc *PlacementCase, reals []*RealPlacement, pred *Predictions, exact bool) {
	t.Helper()
	for run, real := range reals {
		checkLargeGroups(t, pc, run, real, pred)
		for _, wc := range ComparePlacement(pc, real, pred, exact) {
			logOrFail(t, run, wc)
		}
	}
}

// checkLargeGroups holds the real per-zone and per-OS totals to the
// seeded runs' range.
func checkLargeGroups(t *testing.T, pc *PlacementCase, run int, real *RealPlacement, pred *Predictions) {
	t.Helper()
	zone := func(n *corev1.Node) string { return n.Labels[labelZone] }
	osOf := func(n *corev1.Node) string { return n.Labels[corev1.LabelOSStable] }
	for _, g := range []struct {
		what string
		key  func(*corev1.Node) string
	}{{"zone", zone}, {"os", osOf}} {
		groups := GroupTotals(pc, real, pred, g.key)
		t.Logf("real run %d, per %s:\n%s", run+1, g.what, renderGroups(g.what, groups))
		for ref, rows := range groups {
			for _, r := range rows {
				if r.Real < r.Min || r.Real > r.Max {
					t.Errorf("real run %d: %s has %d pods in %s %s, winkube %d..%d", run+1, ref, r.Real, g.what, r.Group, r.Min, r.Max)
				}
			}
		}
	}
}

// logOrFail fails the test if a row of wc is wrong and logs the
// comparison otherwise.
func logOrFail(t *testing.T, run int, wc *WorkloadComparison) {
	t.Helper()
	if wc.Failed() {
		bad := 0
		for _, r := range wc.Rows {
			if !r.OK {
				bad++
			}
		}
		t.Errorf("real run %d: winkube's placement differs from the real scheduler's on %d nodes:\n%s", run+1, bad, wc)
		return
	}
	t.Logf("real run %d: %s", run+1, strings.TrimSuffix(wc.String(), "\n"))
}

func TestGroupTotals(t *testing.T) {
	t.Parallel()
	pc := IssueReproduction()
	pc.Workloads = pc.Workloads[:1] // web: Linux nodes lin-1 (z1), lin-2 (z1), lin-3 (z2)
	nodes := pc.Nodes
	const web = "Deployment/placement/web"
	result := func(pending int, counts ...int) *simulate.Result {
		w := simulate.WorkloadResult{Workload: web, Replicas: 30, Pending: pending}
		for i, c := range counts {
			w.Nodes = append(w.Nodes, simulate.NodeCount{Node: nodes[i].Name, Count: c})
		}
		return &simulate.Result{Workloads: []simulate.WorkloadResult{w}}
	}
	real := &RealPlacement{Nodes: nodes, Workloads: []RealWorkload{{Name: "web", Replicas: 30, Pending: 1,
		Nodes: map[string]int{nodes[0].Name: 12, nodes[1].Name: 10, nodes[2].Name: 7}}}}
	pred := &Predictions{Det: result(0, 12, 10, 8), Seeded: []*simulate.Result{result(0, 13, 10, 7), result(0, 10, 10, 10)}}
	got := GroupTotals(pc, real, pred, func(n *corev1.Node) string { return n.Labels[labelZone] })
	want := map[string][]GroupRow{web: {
		{Group: pendingRow, Real: 1, Det: 0, Min: 0, Max: 0},
		{Group: "z1", Real: 22, Det: 22, Min: 20, Max: 23},
		{Group: "z2", Real: 7, Det: 8, Min: 7, Max: 10},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GroupTotals = %v, want %v", got, want)
	}
	if out := renderGroups("zone", got); !strings.Contains(out, "20..23") {
		t.Errorf("renderGroups lacks the z1 range:\n%s", out)
	}
}
