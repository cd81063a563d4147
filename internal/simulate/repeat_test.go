package simulate

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/test/corpusgen"
)

// TestPendingReplicasRepeat holds the reuse of a pending replica's result
// for the next replica to scheduling every replica again: the same pods,
// nodes, messages and explanations, on small clusters (every node
// scored), large ones (the bucket paths; with FullScoring, the
// scheduler's sampling from a moving start) and a generated estate
// where most workloads do not fit.
func TestPendingReplicasRepeat(t *testing.T) {
	t.Parallel()
	type tc struct {
		name string
		in   func() Input
	}
	var cases []tc
	for seed := range uint64(40) {
		c, yaml := randomCase(seed)
		nodes, pools := c.Nodes()
		cases = append(cases, tc{"random", func() Input { return Input{Nodes: nodes, Pools: pools, Objects: objects(t, yaml)} }})
	}
	// A pod that names its candidate nodes moves where the next search
	// starts even when it stays pending: its replicas are scheduled again.
	small := &cluster.Cluster{Pools: []cluster.Pool{{Name: "a", Count: 5, OS: "linux", CPU: quantity("2"), Memory: quantity("8Gi"), MaxPods: 110}}}
	nodes, pools := small.Nodes()
	named := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: named}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: named}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [` + nodes[1].Name + `, ` + nodes[3].Name + `]}]}]
      containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "3"}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: after}
spec:
  replicas: 7
  template:
    metadata: {labels: {app: after}}
    spec:
      containers: [{name: c, image: registry.k8s.io/pause:3.10}]
`
	cases = append(cases, tc{"named", func() Input { return Input{Nodes: nodes, Pools: pools, Objects: objects(t, named)} }})
	var buf bytes.Buffer
	if _, err := corpusgen.WriteStream(&buf, corpusgen.Options{Objects: 600, Seed: 23}); err != nil {
		t.Fatal(err)
	}
	estate := buf.String()
	for _, size := range []int{1, 5} {
		c := estateCluster(size)
		nodes, pools := c.Nodes()
		for _, full := range []bool{false, true} {
			cases = append(cases, tc{"estate", func() Input {
				return Input{Nodes: nodes, Pools: pools, Objects: objects(t, estate), FullScoring: full}
			}})
		}
	}
	for i, c := range cases {
		want, err := runWith(t.Context(), c.in(), runOptions{rescheduleRepeats: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := runWith(t.Context(), c.in(), runOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, p := range want.Pods {
			if p.Pending {
				pending++
			}
		}
		if pending < 2 && c.name == "estate" {
			t.Errorf("case %d (%s): %d pending pods: the case does not exercise repeats", i, c.name, pending)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("case %d (%s): reusing pending results differs from scheduling every replica (-rescheduled +reused):\n%s", i, c.name, diff)
		}
	}
}

// estateCluster is a Linux pool and two tainted Windows pools (2022 and
// 2019), 12, 6 and 3 nodes times size, in three zones.
func estateCluster(size int) *cluster.Cluster {
	win := []corev1.Taint{cluster.WindowsTaint}
	zones := []string{"z1", "z2", "z3"}
	return &cluster.Cluster{Name: "estate", Pools: []cluster.Pool{
		{Name: "linux", Count: 12 * size, OS: "linux", CPU: quantity("16"), Memory: quantity("64Gi"), MaxPods: 110, Zones: zones},
		{Name: "win2022", Count: 6 * size, OS: "windows", WindowsBuild: "10.0.20348", CPU: quantity("16"), Memory: quantity("64Gi"), MaxPods: 110, Taints: win, Zones: zones},
		{Name: "win2019", Count: 3 * size, OS: "windows", WindowsBuild: "10.0.17763", CPU: quantity("16"), Memory: quantity("64Gi"), MaxPods: 110, Taints: win, Zones: zones},
	}}
}
