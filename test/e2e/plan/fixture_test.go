package plan_test

import (
	"context"
	"encoding/json"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/test/controlplane"
)

// testdata is the plan package's fixture: a Linux pool and a Windows
// Server 2022 pool, and workloads pinned to 2022 with budgets.
const testdata = "../../../internal/plan/testdata/"

// loadFixture reads the plan fixture's current cluster and workloads
// (internal/plan/testdata), failing the test on any error.
func loadFixture(t *testing.T) (*cluster.Cluster, []*manifest.Object) {
	t.Helper()
	cur, err := cluster.Load(testdata + "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ins, errs := manifest.Inputs([]string{testdata + "workloads.yaml"}, nil)
	objs, lerrs := manifest.ReadAll(ins)
	if len(errs)+len(lerrs) > 0 {
		t.Fatal(errs, lerrs)
	}
	return cur, objs
}

// createPDB creates the fixture's PodDisruptionBudget o in namespace
// shop of the control plane.
func createPDB(ctx context.Context, cp *controlplane.ControlPlane, o *manifest.Object) (*policyv1.PodDisruptionBudget, error) {
	var pdb policyv1.PodDisruptionBudget
	if err := json.Unmarshal(o.Root.AppendJSON(nil), &pdb); err != nil {
		return nil, err
	}
	return cp.Client.PolicyV1().PodDisruptionBudgets("shop").Create(ctx, &pdb, metav1.CreateOptions{})
}
