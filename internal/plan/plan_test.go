package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

func load(t *testing.T, paths ...string) []*manifest.Object {
	t.Helper()
	ins, errs := manifest.Inputs(paths, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	objs, lerrs := manifest.ReadAll(ins)
	if len(lerrs) > 0 {
		t.Fatal(lerrs)
	}
	return objs
}

func loadCluster(t *testing.T, path string) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func model(t *testing.T, c *cluster.Cluster) winsupport.Model {
	t.Helper()
	v, err := winsupport.ParseVersion(c.KubernetesVersion)
	if err != nil {
		t.Fatal(err)
	}
	return winsupport.ForVersion(v)
}

func mustChange(t *testing.T) func(Change, error) Change {
	return func(c Change, err error) Change {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func run(t *testing.T, in Input) *Report {
	t.Helper()
	rep, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestAfterAgreesWithSimulate holds the plan's after-state to what the
// simulator says of the target cluster file, for the change given as a
// flag and as --to.
func TestAfterAgreesWithSimulate(t *testing.T) {
	t.Parallel()
	cur := loadCluster(t, "testdata/cluster.yaml")
	tgt := loadCluster(t, "testdata/target.yaml")
	objs := load(t, "testdata/workloads.yaml")
	m := model(t, cur)
	nodes, pools := tgt.Nodes()
	want, err := simulate.Run(t.Context(), simulate.Input{Nodes: nodes, Pools: pools, Objects: objs, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"--set-pool", Input{Current: cur, Model: m, Objects: objs, Rules: rules.Suite(), Changes: []Change{mustChange(t)(SetPool("win:build=10.0.26100"))}}},
		{"--to", Input{Current: cur, Model: m, Objects: objs, Rules: rules.Suite(), Target: tgt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(t, tc.in)
			if len(rep.Workloads) != len(want.Workloads) {
				t.Fatalf("%d workloads, simulate has %d", len(rep.Workloads), len(want.Workloads))
			}
			for i, w := range rep.Workloads {
				if diff := cmp.Diff(stateOf(want.Workloads[i]), w.After); diff != "" {
					t.Errorf("%s: after-state differs from simulate on target.yaml (-simulate +plan):\n%s", w.Workload, diff)
				}
			}
			verdicts := map[string]string{}
			for _, w := range rep.Workloads {
				verdicts[w.Workload] = w.Verdict
			}
			wantV := map[string]string{"Deployment/shop/web": Unchanged, "Deployment/shop/iis": Breaks, "Deployment/shop/api": Unchanged, "Deployment/shop/report": Breaks}
			if diff := cmp.Diff(wantV, verdicts); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if !rep.Broken() {
				t.Error("Broken() = false with two workloads broken")
			}
		})
	}
}

// TestCausesCiteTheirSource holds every cause to what it cites: a rule
// cause to a finding of that rule that the lint engine raises on the
// target and not on the current cluster, a runtime cause to the
// simulator's message on the target, whose reason it names.
func TestCausesCiteTheirSource(t *testing.T) {
	t.Parallel()
	cur := loadCluster(t, "testdata/cluster.yaml")
	objs := load(t, "testdata/workloads.yaml")
	m := model(t, cur)
	// Back to Windows Server 2019: the 2022 images cannot run there.
	in := Input{Current: cur, Model: m, Objects: objs, Rules: rules.Suite(), Changes: []Change{mustChange(t)(SetPool("win:build=ltsc2019"))}}
	rep := run(t, in)
	tgt, err := Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	afterF := engine.Check(objs, engine.Options{Rules: rules.Suite(), Cluster: tgt.Cluster(), Model: tgt.Model()}).Findings
	beforeF := engine.Check(objs, engine.Options{Rules: rules.Suite(), Cluster: cur, Model: m}).Findings
	sims := map[string]simulate.WorkloadResult{}
	for _, w := range rep.After.Workloads {
		sims[w.Workload] = w
	}
	seen := map[string]bool{}
	for _, w := range rep.Workloads {
		for _, c := range w.Causes {
			seen[c.Kind+"/"+c.ID] = true
			switch c.Kind {
			case "rule":
				if !hasFinding(afterF, w.Workload, c.ID, c.Message) {
					t.Errorf("%s: cause %s %q: the engine raises no such finding on the target", w.Workload, c.ID, c.Message)
				}
				if hasFinding(beforeF, w.Workload, c.ID, c.Message) {
					t.Errorf("%s: cause %s %q: the current cluster raises it too", w.Workload, c.ID, c.Message)
				}
			case "runtime":
				s := sims[w.Workload]
				switch c.ID {
				case "FailedScheduling":
					if c.Message != s.PendingMessage {
						t.Errorf("%s: FailedScheduling %q, simulate says %q", w.Workload, c.Message, s.PendingMessage)
					}
				case "FailedCreate":
					if c.Message != s.RejectMessage {
						t.Errorf("%s: FailedCreate %q, simulate says %q", w.Workload, c.Message, s.RejectMessage)
					}
				default:
					if c.Message != s.StartFailure || !strings.HasPrefix(c.Message, c.ID+": ") {
						t.Errorf("%s: %s %q, simulate says %q", w.Workload, c.ID, c.Message, s.StartFailure)
					}
				}
			}
		}
	}
	for _, want := range []string{"rule/image-build-mismatch", "runtime/CreateContainerError", "plan/capacity-lost"} {
		if !seen[want] {
			t.Errorf("no cause %s in the WS2022 -> WS2019 plan (have %v)", want, seen)
		}
	}
}

func hasFinding(fs []rule.Finding, ref, id, msg string) bool {
	for _, f := range fs {
		if f.Rule == id && f.Message == msg && f.Object != nil && f.Object.Kind+"/"+nsOf(f.Object)+"/"+f.Object.Name == ref {
			return true
		}
	}
	return false
}

// TestDrainNeverSpendsABudget replays the drain's evictions against the
// budgets: each eviction finds disruptionsAllowed above zero, every pod
// of the old pool is evicted once, and no wave leaves a budget short.
func TestDrainNeverSpendsABudget(t *testing.T) {
	t.Parallel()
	cur := loadCluster(t, "testdata/cluster.yaml")
	objs := load(t, "testdata/workloads.yaml")
	rep := run(t, Input{Current: cur, Model: model(t, cur), Objects: objs, Changes: []Change{mustChange(t)(SetPool("win:build=10.0.26100"))}})
	var kinds []string
	evicted := map[string]int{}
	for _, s := range rep.Steps {
		kinds = append(kinds, s.Kind)
		if !strings.HasPrefix(s.Check, "ok") && s.Check != "" {
			t.Errorf("step %d %s: check %q", s.Number, s.Title, s.Check)
		}
		for _, e := range s.Evictions {
			evicted[e.Namespace+"/"+e.Pod]++
			if e.Budget != "" && e.Allowed < 1 {
				t.Errorf("step %d evicts %s with %s allowing %d", s.Number, e.Pod, e.Budget, e.Allowed)
			}
		}
		if len(s.Blocked) > 0 {
			t.Errorf("step %d blocked: %v", s.Number, s.Blocked)
		}
	}
	want := []string{"create-pool", "pins", "cordon", "drain", "drain", "drain", "drain", "remove-pool"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	var onWin int
	for _, p := range rep.Before.Pods {
		if p.Pool == "win" {
			onWin++
			if evicted[p.Namespace+"/"+p.Pod] != 1 {
				t.Errorf("%s/%s evicted %d times", p.Namespace, p.Pod, evicted[p.Namespace+"/"+p.Pod])
			}
		}
	}
	if len(evicted) != onWin {
		t.Errorf("%d evictions for %d pods on the old pool", len(evicted), onWin)
	}
}

// TestBlockedDrain: a budget that allows no disruption blocks the drain,
// with the API server's message.
func TestBlockedDrain(t *testing.T) {
	t.Parallel()
	cur := loadCluster(t, "testdata/cluster.yaml")
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "minAvailable: 2", "minAvailable: 3", 1))
	path := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, Input{Current: cur, Model: model(t, cur), Objects: load(t, path), Changes: []Change{mustChange(t)(SetPool("win:build=10.0.26100"))}})
	var blocked []string
	for _, s := range rep.Steps {
		blocked = append(blocked, s.Blocked...)
	}
	if len(blocked) != 3 {
		t.Fatalf("blocked %q, want the three iis pods", blocked)
	}
	for _, b := range blocked {
		if !strings.Contains(b, evictionDenied) || !strings.Contains(b, "Deployment/shop/iis") {
			t.Errorf("blocked %q", b)
		}
	}
}

func TestBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"set-pool without field", second(SetPool("win")), `--set-pool "win": no pool name or no field`},
		{"set-pool unknown field", second(SetPool("win:colour=blue")), `unknown field "colour"`},
		{"set-pool bad build", second(SetPool("win:build=2030")), `build "2030" is not a Windows Server build`},
		{"set-pool bad count", second(SetPool("win:count=-1")), `count "-1" is not a whole number`},
		{"taint effect", second(Taint("win:os=windows:Sometimes")), `--taint "win:os=windows:Sometimes"`},
		{"taint parts", second(Taint("win:os=windows")), "want POOL:KEY=VALUE:EFFECT"},
		{"version", second(KubernetesVersion("1.99")), `--kubernetes-version "1.99"`},
		{"containerd", second(Containerd("3.0")), `--containerd "3.0": want a containerd release 1.x or 2.x`},
		{"runtime class without handler", second(RuntimeClass("rc:nodeSelector=a=b")), "no handler"},
		{"runtime class bad toleration", second(RuntimeClass("rc:handler=h,toleration=a=b")), `toleration "a=b" is not KEY=VALUE:EFFECT`},
		{"remove-pool", second(RemovePool("a:b")), `--remove-pool "a:b"`},
		{"add-pool missing file", second(AddPool("testdata/nope.yaml")), "--add-pool testdata/nope.yaml"},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, tc.err, tc.want)
		}
	}
	// A pool that is not in the cluster is named with the pools there are.
	cur := loadCluster(t, "testdata/cluster.yaml")
	_, err := Apply(Input{Current: cur, Model: model(t, cur), Changes: []Change{mustChange(t)(SetPool("nope:count=2"))}})
	if err == nil || !strings.Contains(err.Error(), `--set-pool: no pool "nope" in the current cluster (its pools: linux, win)`) {
		t.Errorf("unknown pool: %v", err)
	}
}

func second(_ Change, err error) error { return err }

// TestObservedNodes plans on kubectl get nodes -o yaml: the change is
// carried onto the nodes, which keep their names.
func TestObservedNodes(t *testing.T) {
	t.Parallel()
	cur := loadCluster(t, "testdata/cluster.yaml")
	nodes, names := cur.Nodes()
	for _, n := range nodes {
		n.Labels["kubernetes.azure.com/agentpool"] = names[n.Name] // the pool label AKS sets
	}
	obs := cluster.FromNodes(nodes)
	in := Input{Current: obs, Model: model(t, cur), Objects: load(t, "testdata/workloads.yaml"),
		Changes: []Change{mustChange(t)(SetPool("win:build=10.0.26100,count=4")), mustChange(t)(Taint("win:dedicated=iis:NoSchedule"))}}
	tgt, err := Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	got, pools := tgt.Cluster().Nodes()
	var win []string
	for _, n := range got {
		if pools[n.Name] != "win" {
			continue
		}
		win = append(win, n.Name)
		if b := n.Labels[cluster.LabelWindowsBuild]; b != "10.0.26100" {
			t.Errorf("%s: build %q", n.Name, b)
		}
		if len(n.Spec.Taints) != 2 {
			t.Errorf("%s: taints %v", n.Name, n.Spec.Taints)
		}
	}
	if diff := cmp.Diff([]string{"win-0", "win-1", "win-2", "win-planned-3"}, win); diff != "" {
		t.Errorf("win nodes (-want +got):\n%s", diff)
	}
	for _, n := range nodes {
		if n.Labels[cluster.LabelWindowsBuild] == "10.0.26100" {
			t.Fatalf("the current cluster's node %s was changed", n.Name)
		}
	}
	// The new pool's nodes carry its own name in the provider's pool
	// label, so the steps' selectors tell the two pools apart.
	rep := run(t, in)
	var cmds []string
	for _, s := range rep.Steps {
		if s.Kind == "create-pool" || s.Kind == "cordon" {
			cmds = append(cmds, s.Commands...)
		}
	}
	want := []string{
		"kubectl label nodes -l kubernetes.azure.com/agentpool=win-ltsc2025 --overwrite kubernetes.azure.com/agentpool=win-ltsc2025",
		"kubectl taint nodes -l kubernetes.azure.com/agentpool=win-ltsc2025 --overwrite os=windows:NoSchedule",
		"kubectl taint nodes -l kubernetes.azure.com/agentpool=win-ltsc2025 --overwrite dedicated=iis:NoSchedule",
		"kubectl get nodes -l kubernetes.azure.com/agentpool=win-ltsc2025 -o wide",
		"kubectl cordon -l kubernetes.azure.com/agentpool=win",
	}
	if diff := cmp.Diff(want, cmds); diff != "" {
		t.Errorf("create-pool and cordon commands (-want +got):\n%s", diff)
	}
}
