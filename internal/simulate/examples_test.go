package simulate

import (
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
)

// examples reads the repository's examples/ as `winkube simulate examples/`
// does.
func examples(t *testing.T) []*manifest.Object {
	t.Helper()
	ins, errs := manifest.Inputs([]string{"../../examples"}, nil)
	if len(errs) > 0 {
		t.Fatalf("inputs: %v", errs[0])
	}
	objs, errs := manifest.ReadAll(ins)
	if len(errs) > 0 {
		t.Fatalf("read: %v", errs[0])
	}
	return objs
}

var (
	apiRefusal = regexp.MustCompile(`^(pods "[^"]+" is forbidden: |[A-Za-z]+(\.[a-z.]+)? "[^"]+" is invalid: )`)
	fitMessage = regexp.MustCompile(`^0/5 nodes are available: .+\. no new claims to deallocate, preemption: 0/5 nodes are available: .+\.$`)
)

func TestExamplesOnReferenceCluster(t *testing.T) {
	t.Parallel()
	nodes, pools := cluster.Reference().Nodes()
	in := Input{Nodes: nodes, Pools: pools, Objects: examples(t)}
	res, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	workloads := 0
	for _, o := range in.Objects {
		if manifest.CreatesPods(o.Kind) {
			workloads++
		}
	}
	if len(res.Workloads) != workloads || workloads == 0 {
		t.Errorf("%d workload results for %d workloads", len(res.Workloads), workloads)
	}
	for _, p := range res.Pods {
		outcomes := 0
		for _, b := range []bool{p.Rejected, p.Pending, p.Node != ""} {
			if b {
				outcomes++
			}
		}
		if outcomes != 1 {
			t.Errorf("%s: rejected=%v pending=%v node=%q; want exactly one outcome", p.Pod, p.Rejected, p.Pending, p.Node)
		}
		switch {
		case p.Rejected && !apiRefusal.MatchString(p.RejectMessage):
			t.Errorf("%s: refusal %q is not in the API server's form", p.Pod, p.RejectMessage)
		case p.Pending && p.Message != "" && !fitMessage.MatchString(p.Message):
			t.Errorf("%s: pending message %q is not in the scheduler's form", p.Pod, p.Message)
		case p.Node != "" && !slices.Contains(p.Feasible, p.Node):
			t.Errorf("%s: bound to %s, which is not among its feasible nodes %v", p.Pod, p.Node, p.Feasible)
		}
	}
	if !res.Failed() {
		t.Errorf("the examples carry deliberate mistakes, yet every pod is scheduled and starts")
	}
	again, err := Run(t.Context(), Input{Nodes: nodes, Pools: pools, Objects: examples(t)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res, again); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}
