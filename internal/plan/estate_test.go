package plan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/test/corpusgen"
)

// estateObjects writes a generated estate of about 200 workloads
// (test/corpusgen, seed 23, the benchmark's at a tenth of its size) one
// file per application, and reads it back as winkube plan does.
func estateObjects(t *testing.T) []*manifest.Object {
	t.Helper()
	dir := t.TempDir()
	st, err := corpusgen.WriteFiles(dir, corpusgen.Options{Objects: 560, Seed: 23})
	if err != nil {
		t.Fatal(err)
	}
	if st.Workloads < 200 {
		t.Fatalf("the estate has %d workloads, want at least 200", st.Workloads)
	}
	return load(t, dir)
}

// estateCase is one of the changes on the estate, with the target
// cluster file that simulate reads. moves says replicas are lost or move:
// the upgrade to 1.34 changes the scheduler's messages (and warns of the
// unsupported pool) but no placement.
type estateCase struct {
	name   string
	in     Input
	target string
	moves  bool
}

// estateCases are the two changes on the estate, as flags and as
// a target cluster file.
func estateCases(t *testing.T) []estateCase {
	cur := loadCluster(t, "testdata/estate-current.yaml")
	m := model(t, cur)
	objs := estateObjects(t)
	in := func(changes ...Change) Input {
		return Input{Current: cur, Model: m, Objects: objs, Rules: rules.Suite(), Changes: changes}
	}
	to := in()
	to.Target = loadCluster(t, "testdata/estate-ws2025.yaml")
	return []estateCase{
		{"--set-pool win2022:build=10.0.26100", in(mustChange(t)(SetPool("win2022:build=10.0.26100"))), "testdata/estate-ws2025.yaml", true},
		{"--kubernetes-version 1.34", in(mustChange(t)(KubernetesVersion("1.34"))), "testdata/estate-k134.yaml", false},
		{"--to estate-ws2025.yaml", to, "testdata/estate-ws2025.yaml", true},
	}
}

// TestEstateAfterAgreesWithSimulate holds the plan's after-state of every
// workload of a generated estate (Linux and two Windows pools, most of it
// pending for want of room, some refused or failing at start) to running
// simulate on the target cluster file: the same pods placed per pool,
// pending, refused and failing, with the same message.
func TestEstateAfterAgreesWithSimulate(t *testing.T) {
	t.Parallel()
	for _, tc := range estateCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt := loadCluster(t, tc.target)
			nodes, pools := tgt.Nodes()
			want, err := simulate.Run(t.Context(), simulate.Input{Nodes: nodes, Pools: pools, Objects: tc.in.Objects, Model: model(t, tgt)})
			if err != nil {
				t.Fatal(err)
			}
			rep := run(t, tc.in)
			if len(rep.Workloads) != len(want.Workloads) {
				t.Fatalf("%d workloads, simulate has %d", len(rep.Workloads), len(want.Workloads))
			}
			statuses := map[string]int{}
			for i, w := range rep.Workloads {
				if w.Workload != want.Workloads[i].Workload {
					t.Fatalf("workload %d is %s, simulate has %s", i, w.Workload, want.Workloads[i].Workload)
				}
				if diff := cmp.Diff(stateOf(want.Workloads[i]), w.After); diff != "" {
					t.Errorf("%s: after-state differs from simulate on %s (-simulate +plan):\n%s", w.Workload, tc.target, diff)
				}
				statuses[w.After.Status]++
			}
			// The estate must exercise every state, or agreement proves little.
			for _, s := range []string{"scheduled", "pending", "refused", "failing"} {
				if statuses[s] == 0 {
					t.Errorf("no workload is %s after the change (have %v)", s, statuses)
				}
			}
			if tc.moves && rep.Summary.Unchanged == len(rep.Workloads) {
				t.Errorf("the change leaves every workload unchanged: %+v", rep.Summary)
			}
		})
	}
}

// TestEstateCausesCiteTheirSource holds every cause of the estate's plans
// to what it cites (see checkCauses).
func TestEstateCausesCiteTheirSource(t *testing.T) {
	t.Parallel()
	for _, tc := range estateCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seen := checkCauses(t, tc.in, run(t, tc.in))
			t.Logf("causes: %v", seen)
			if seen["runtime/FailedScheduling"] == 0 {
				t.Errorf("causes %v: the estate's change should change why pods are pending", seen)
			}
			if tc.moves && seen["plan/capacity-lost"]+seen["plan/moved"] == 0 {
				t.Errorf("causes %v: the estate's change should lose or move replicas", seen)
			}
		})
	}
}

// checkCauses holds every cause of rep to what it cites: a rule cause to
// a finding of that rule, with the same message, that the lint engine
// raises on the target and not on the current cluster; a runtime cause
// to the simulator's message on the target, whose Kubernetes reason it
// names; capacity-lost to the ready replicas before and after; moved to
// the pools before and after; the summary's replicas lost to the
// capacity-lost causes. It returns how many causes of each kind/ID
// it saw.
func checkCauses(t *testing.T, in Input, rep *Report) map[string]int {
	t.Helper()
	tgt, err := Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	afterObjs, afterRCs := withRuntimeClasses(in.Objects, tgt.runtimeClasses)
	afterF := engine.Check(afterObjs, engine.Options{Rules: in.Rules, Cluster: tgt.Cluster(), Model: tgt.Model(), RuntimeClasses: afterRCs}).Findings
	beforeF := engine.Check(in.Objects, engine.Options{Rules: in.Rules, Cluster: in.Current, Model: in.Model}).Findings
	sims := map[string]simulate.WorkloadResult{}
	for _, w := range rep.After.Workloads {
		sims[w.Workload] = w
	}
	known := map[string]bool{}
	for _, r := range in.Rules {
		known[r.ID] = true
	}
	seen := map[string]int{}
	lost := 0
	for _, w := range rep.Workloads {
		for _, c := range w.Causes {
			seen[c.Kind+"/"+c.ID]++
			if c.ID == "capacity-lost" {
				lost += w.Before.Ready - w.After.Ready
			}
			switch c.Kind {
			case "rule":
				if !known[c.ID] {
					t.Errorf("%s: cause %s is no rule of the suite", w.Workload, c.ID)
				}
				if !hasFinding(afterF, w.Workload, c.ID, c.Message) {
					t.Errorf("%s: cause %s %q: the engine raises no such finding on the target", w.Workload, c.ID, c.Message)
				}
				if hasFinding(beforeF, w.Workload, c.ID, c.Message) {
					t.Errorf("%s: cause %s %q: the current cluster raises it too", w.Workload, c.ID, c.Message)
				}
			case "runtime":
				checkRuntimeCause(t, w.Workload, c, sims[w.Workload])
			case "plan":
				checkPlanCause(t, w, c)
			default:
				t.Errorf("%s: cause of kind %q", w.Workload, c.Kind)
			}
		}
	}
	// The summary counts the capacity lost in replicas, not workloads.
	if rep.Summary.ReplicasLost != lost {
		t.Errorf("summary: %d ready replicas lost, the capacity-lost causes say %d", rep.Summary.ReplicasLost, lost)
	}
	return seen
}

func checkRuntimeCause(t *testing.T, ref string, c Cause, s simulate.WorkloadResult) {
	t.Helper()
	switch c.ID {
	case "FailedScheduling":
		if c.Message != s.PendingMessage || s.Pending == 0 {
			t.Errorf("%s: FailedScheduling %q, simulate says %q (%d pending)", ref, c.Message, s.PendingMessage, s.Pending)
		}
	case "FailedCreate":
		if c.Message != s.RejectMessage || s.Rejected == 0 {
			t.Errorf("%s: FailedCreate %q, simulate says %q (%d refused)", ref, c.Message, s.RejectMessage, s.Rejected)
		}
	default:
		if c.Message != s.StartFailure || c.ID != RuntimeReason(s.StartFailure) || s.StartFailures == 0 {
			t.Errorf("%s: %s %q, simulate says %q", ref, c.ID, c.Message, s.StartFailure)
		}
	}
}

func checkPlanCause(t *testing.T, w Workload, c Cause) {
	t.Helper()
	b, a := w.Before, w.After
	var want string
	switch c.ID {
	case "capacity-lost":
		want = fmt.Sprintf("%d of %d ready replicas are lost (before %d ready, after %d)", b.Ready-a.Ready, b.Ready, b.Ready, a.Ready)
		if a.Ready >= b.Ready {
			t.Errorf("%s: capacity-lost with %d ready before and %d after", w.Workload, b.Ready, a.Ready)
		}
	case "moved":
		want = "pods move from " + poolsText(b.Pools) + " to " + poolsText(a.Pools)
		if slices.Equal(b.Pools, a.Pools) {
			t.Errorf("%s: moved, but the pools are the same: %v", w.Workload, a.Pools)
		}
	default:
		t.Errorf("%s: plan cause %q", w.Workload, c.ID)
		return
	}
	if c.Message != want {
		t.Errorf("%s: %s %q, want %q", w.Workload, c.ID, c.Message, want)
	}
}
