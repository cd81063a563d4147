package fidelity

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	placementSeedFlag   = flag.Uint64("placement.seed", 1, "seed of the generated placement cases")
	placementCasesFlag  = flag.Int("placement.cases", 8, "number of generated placement cases")
	placementCaseFlag   = flag.Int("placement.case", -1, "run only this generated placement case of the seed (and not the issue's reproduction)")
	placementMixedFlag  = flag.Int("placement.mixed", 4, "number of generated mixed placement cases (Deployments with a DaemonSet, a StatefulSet and a Job)")
	placementMixedCase  = flag.Int("placement.mixed-case", -1, "run only this generated mixed placement case of the seed")
	placementSeedsFlag  = flag.Int("placement.k", 100, "winkube runs with seeds 1..k per case, for the spread of tie-breaking")
	placementRepeatFlag = flag.Int("placement.repeat", 3, "runs of the issue's reproduction on the real scheduler, to see whether it is deterministic there")
	placementRepeatGen  = flag.Int("placement.repeat-generated", 1, "runs of each generated placement case on the real scheduler")
	placementExactFlag  = flag.Bool("placement.exact", false, "require the real count to equal winkube's deterministic one on every node, ties or not")
	placementSchedLog   = flag.String("placement.scheduler-log", "", "run kube-scheduler with --v=10 (every plugin's score per node and pod) and copy its log to this file")
)

// TestPlacement compares where replicas land: each case (the reproduction
// of issue 14, generated hybrid clusters with Deployments, then generated
// ones that add a DaemonSet, a StatefulSet and a Job) runs on a real
// v1.36.3 kube-scheduler, with kube-controller-manager creating the
// workloads' pods, and through simulate.Run, deterministic and with seeds 1..k. For
// every Deployment and node, the real count must equal winkube's
// deterministic count where no tie reaches the node (every seeded run
// agrees), else lie within the seeded runs' range. Each real placement is
// logged, so -v shows the real scheduler's counts even when all agree.
func TestPlacement(t *testing.T) {
	var cases []*PlacementCase
	switch {
	case *placementCaseFlag >= 0:
		cases = append(cases, NewPlacementCase(*placementSeedFlag, *placementCaseFlag))
	case *placementMixedCase >= 0:
		cases = append(cases, NewMixedPlacementCase(*placementSeedFlag, *placementMixedCase))
	default:
		cases = append(cases, IssueReproduction())
		for i := range *placementCasesFlag {
			cases = append(cases, NewPlacementCase(*placementSeedFlag, i))
		}
		for i := range *placementMixedFlag {
			cases = append(cases, NewMixedPlacementCase(*placementSeedFlag, i))
		}
	}
	start := time.Now()
	cl := StartPlacementCluster(t, *placementSchedLog, 0)
	t.Logf("control plane with kube-controller-manager up in %s; %d placement cases", time.Since(start).Round(time.Millisecond), len(cases))

	rule := "a node's real count must equal winkube det where all seeded runs agree, else lie within their min..max"
	if *placementExactFlag {
		rule = "-placement.exact: a node's real count must equal winkube det"
	}
	compared, differing := 0, 0
	for _, pc := range cases {
		runs := max(1, *placementRepeatGen)
		if pc.Name == IssueReproduction().Name {
			runs = max(1, *placementRepeatFlag)
		}
		t.Run(pc.Name, func(t *testing.T) {
			ctx := t.Context()
			caseStart := time.Now()
			var reals []*RealPlacement
			for run := range runs {
				real, err := cl.Run(ctx, pc)
				if err != nil {
					t.Fatalf("run %d on the real cluster: %v", run+1, err)
				}
				t.Logf("real run %d: %s", run+1, real)
				for i, w := range real.Workloads {
					t.Logf("real run %d: %s %s: all %d pods bound or pending %s after creation", run+1, kindOf(pc.Workloads[i]), w.Name, w.Replicas, w.Took.Round(time.Millisecond))
				}
				reals = append(reals, real)
			}
			if runs > 1 {
				same := true
				for _, r := range reals[1:] {
					same = same && r.String() == reals[0].String()
				}
				t.Logf("real scheduler deterministic over %d runs: %v", runs, same)
			}
			pred, err := Predict(ctx, pc, reals[0].Nodes, *placementSeedsFlag)
			if err != nil {
				t.Fatal(err)
			}
			for run, real := range reals {
				for _, wc := range ComparePlacement(pc, real, pred, *placementExactFlag) {
					compared++
					table := wc.String()
					if runs > 1 {
						table = fmt.Sprintf("real run %d: %s", run+1, table)
					}
					if wc.Failed() {
						differing++
						t.Errorf("winkube's placement differs from the real scheduler's (%s):\n%s", rule, table)
					} else {
						t.Logf("%s", strings.TrimSuffix(table, "\n"))
					}
				}
			}
			t.Logf("case took %s", time.Since(caseStart).Round(time.Millisecond))
		})
	}
	t.Logf("%d cases in %s; %d of %d workload placements differ from the real scheduler's",
		len(cases), time.Since(start).Round(time.Millisecond), differing, compared)
}
