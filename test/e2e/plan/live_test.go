package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/test/controlplane"
)

// TestLiveAgreesWithFiles plans the fixture's change once from files and
// once from a real API server holding the same nodes, workloads,
// RuntimeClass and PodDisruptionBudgets (read-only, --kubeconfig): the
// workloads' before, after and verdicts, and the drain, are the same.
func TestLiveAgreesWithFiles(t *testing.T) {
	t.Parallel()
	cur, objs := loadFixture(t)
	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := cp.CreateNamespace(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	nodes, pools := cur.Nodes()
	for _, n := range nodes {
		n.Labels["kubernetes.azure.com/agentpool"] = pools[n.Name] // the pool label AKS sets
		if _, err := cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range objs {
		var err error
		switch x := o.Typed.(type) {
		case *appsv1.Deployment:
			_, err = cp.Client.AppsV1().Deployments("shop").Create(ctx, x, metav1.CreateOptions{})
		case *nodev1.RuntimeClass:
			_, err = cp.Client.NodeV1().RuntimeClasses().Create(ctx, x, metav1.CreateOptions{})
		default:
			if o.Kind == "PodDisruptionBudget" {
				_, err = createPDB(ctx, cp, o)
			}
		}
		if err != nil {
			t.Fatalf("creating %s: %v", o.Ref(), err)
		}
	}

	change := []string{"plan", "-o", "json", "--fail-on", "none", "--current-kubernetes-version", "1.33", "--set-pool", "win:build=10.0.26100"}
	fromFiles := planJSON(t, append(change, "--cluster", testdata+"cluster.yaml", testdata+"workloads.yaml")...)
	live := planJSON(t, append(change, "--kubeconfig", cp.KubeconfigPath, "-A")...)
	// Live objects come sorted by namespace, kind and name; the files in
	// their own order. The pods of each workload then land on other
	// nodes of the same pools, so the drain's waves are compared by what
	// they evict of each workload.
	byName := cmpopts.SortSlices(func(a, b planWorkload) bool { return a.Workload < b.Workload })
	if diff := cmp.Diff(fromFiles.Workloads, live.Workloads, byName); diff != "" {
		t.Errorf("workloads from files and live differ (-files +live):\n%s", diff)
	}
	if diff := cmp.Diff(stepSummary(fromFiles), stepSummary(live)); diff != "" {
		t.Errorf("steps from files and live differ (-files +live):\n%s", diff)
	}
	if len(live.Workloads) != 4 {
		t.Errorf("%d workloads read live, want the fixture's 4", len(live.Workloads))
	}
}

// planJSONReport is the part of the PlanReport both runs must agree on.
type planJSONReport struct {
	Workloads []planWorkload `json:"workloads"`
	Steps     []struct {
		Kind, Title string
		Evictions   []struct{ Workload, Budget string }
	} `json:"steps"`
}

type planWorkload struct {
	Workload, Verdict string
	Before, After     json.RawMessage
	Causes            []struct{ Kind, ID string }
}

// stepSummary is each step's kind and title, and, for a drain wave, how
// many pods of each workload it evicts.
func stepSummary(r planJSONReport) []string {
	var out []string
	for _, s := range r.Steps {
		line := s.Kind + ": " + s.Title
		n := map[string]int{}
		for _, e := range s.Evictions {
			n[e.Workload+" "+e.Budget]++
		}
		keys := slices.Sorted(maps.Keys(n))
		for _, k := range keys {
			line += fmt.Sprintf("; %s x%d", k, n[k])
		}
		out = append(out, line)
	}
	return out
}

func planJSON(t *testing.T, args ...string) planJSONReport {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := cli.Run(t.Context(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != cli.ExitClean {
		t.Fatalf("winkube %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
	var r planJSONReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return r
}
