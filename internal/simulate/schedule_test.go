package simulate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
)

// randomCase builds a cluster and workloads from a seed: pools with
// taints, zones and labels; workloads with requests, selectors,
// tolerations, preferences, host ports, spread and anti-affinity.
func randomCase(seed uint64) (*cluster.Cluster, string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := &cluster.Cluster{}
	for i := range 2 + rng.IntN(4) {
		p := cluster.Pool{Name: fmt.Sprintf("pool%d", i), Count: 1 + rng.IntN(6), OS: "linux",
			CPU: quantity(fmt.Sprint([]int{2, 3, 4, 8, 32, 64}[rng.IntN(6)])), Memory: quantity(fmt.Sprintf("%dGi", []int{4, 8, 16, 64, 256}[rng.IntN(5)])), MaxPods: 4 + rng.IntN(8),
			Labels: map[string]string{"tier": []string{"a", "b"}[rng.IntN(2)], "disk": []string{"ssd", "hdd"}[rng.IntN(2)]}}
		if rng.IntN(3) == 0 {
			p.OS, p.WindowsBuild = "windows", "10.0.20348"
			p.Taints = append(p.Taints, cluster.WindowsTaint)
		}
		if rng.IntN(3) == 0 {
			p.Taints = append(p.Taints, corev1Taint("soft", "PreferNoSchedule"))
		}
		if rng.IntN(2) == 0 {
			p.Zones = []string{"z1", "z2", "z3"}[:1+rng.IntN(3)]
		}
		c.Pools = append(c.Pools, p)
	}
	var b strings.Builder
	for i := range 4 + rng.IntN(6) {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w%d}\nspec:\n  replicas: %d\n  template:\n    metadata: {labels: {app: w%d}}\n    spec:\n", i, 1+rng.IntN(12), i)
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "      nodeSelector: {kubernetes.io/os: %s}\n", []string{"linux", "windows"}[rng.IntN(2)])
		}
		if rng.IntN(2) == 0 {
			b.WriteString("      tolerations: [{key: os, operator: Exists}]\n")
		}
		var affinity []string
		if rng.IntN(3) == 0 {
			affinity = append(affinity, fmt.Sprintf("        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n          - {weight: %d, preference: {matchExpressions: [{key: tier, operator: In, values: [a]}]}}\n          - {weight: %d, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}\n", 1+rng.IntN(50), 1+rng.IntN(50)))
		}
		if rng.IntN(4) == 0 {
			affinity = append(affinity, fmt.Sprintf("        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: w%d}}}]\n", i))
		}
		if len(affinity) > 0 {
			b.WriteString("      affinity:\n" + strings.Join(affinity, ""))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "      topologySpreadConstraints: [{maxSkew: %d, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w%d}}}]\n", 1+rng.IntN(2), i)
		}
		ports := ""
		if rng.IntN(5) == 0 {
			ports = ", ports: [{containerPort: 80, hostPort: 8080}]"
		}
		req := ""
		if rng.IntN(5) != 0 {
			req = fmt.Sprintf(", resources: {requests: {cpu: %dm, memory: %dMi}}", 100*(1+rng.IntN(15)), 128*(1+rng.IntN(16)))
		}
		fmt.Fprintf(&b, "      containers: [{name: c, image: registry.k8s.io/pause:3.10%s%s}]\n", ports, req)
	}
	return c, b.String()
}

// The bucket paths must choose exactly what judging every node would.
func TestBucketsMatchNodeByNode(t *testing.T) {
	t.Parallel()
	on, off := true, false
	for seed := range uint64(100) {
		c, yaml := randomCase(seed)
		nodes, pools := c.Nodes()
		in := func() Input { return Input{Nodes: nodes, Pools: pools, Objects: objects(t, yaml)} }
		want, err := runWith(t.Context(), in(), runOptions{generic: true, feasible: &on, unscoredSmall: true})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := runWith(t.Context(), in(), runOptions{feasible: &off, unscoredSmall: true})
		if err != nil {
			t.Fatal(err)
		}
		recorded, err := runWith(t.Context(), in(), runOptions{feasible: &on, unscoredSmall: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want.Pods {
			f, r := fast.Pods[i], recorded.Pods[i]
			if f.Node != w.Node || f.Message != w.Message {
				t.Fatalf("seed %d, pod %s: buckets put it on %q (%q), node by node on %q (%q)\n%s", seed, w.Pod, f.Node, f.Message, w.Node, w.Message, yaml)
			}
			if diff := cmp.Diff(w.Feasible, r.Feasible); r.Node != w.Node || diff != "" {
				t.Fatalf("seed %d, pod %s: feasible nodes (-node by node +buckets):\n%s", seed, w.Pod, diff)
			}
		}
	}
}

func TestReplicasSpreadByLeastAllocated(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  template:
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
`
	res := simulateOn(t, nil, yaml, Input{})
	got := nodesOf(res.Pods)
	want := []string{"linux-0", "linux-1", "linux-2", "linux-0", "linux-1", "linux-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
}

func TestTopologySpreadAcrossZones(t *testing.T) {
	t.Parallel()
	c := &cluster.Cluster{Pools: []cluster.Pool{{Name: "linux", Count: 6, OS: "linux", CPU: quantity("8"), Memory: quantity("32Gi"), Zones: []string{"a", "b", "c"}}}}
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 9
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, preference: {matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]}}]
      topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
`
	res := simulateOn(t, c, yaml, Input{})
	zoneOf := map[string]string{}
	nodes, _ := c.Nodes()
	for _, n := range nodes {
		zoneOf[n.Name] = n.Labels[cluster.LabelZone]
	}
	perZone := map[string]int{}
	for _, p := range res.Pods {
		perZone[zoneOf[p.Node]]++
	}
	// Zone a is preferred, yet the hard constraint keeps the zones even.
	if diff := cmp.Diff(map[string]int{"a": 3, "b": 3, "c": 3}, perZone); diff != "" {
		t.Errorf("pods per zone (-want +got):\n%s", diff)
	}
}

func TestRequiredAntiAffinity(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ha}
spec:
  replicas: 5
  template:
    metadata: {labels: {app: ha}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: ha}}}]
      containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: intruder, labels: {app: ha}}
spec:
  tolerations: [{operator: Exists}]
  containers: [{name: c, image: nginx}]
`
	res := simulateOn(t, nil, yaml, Input{})
	ha := podsOf(res, "Deployment/default/ha")
	if diff := cmp.Diff([]string{"linux-0", "linux-1", "linux-2", "", ""}, nodesOf(ha)); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
	want := "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
	for _, p := range ha[3:] {
		if p.Message != want {
			t.Errorf("%s: %q\nwant %q", p.Pod, p.Message, want)
		}
	}
	// The replicas' anti-affinity also repels a later pod they match.
	intruder := podsOf(res, "Pod/default/intruder")[0]
	if intruder.Node != "windows-0" {
		t.Errorf("intruder on %q, want windows-0: the Linux nodes are taken by pods that repel it", intruder.Node)
	}
}

func TestHostPortConflict(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: proxy}
spec:
  template:
    spec:
      hostNetwork: true
      containers: [{name: c, image: nginx, ports: [{containerPort: 443}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: nginx, ports: [{containerPort: 8443, hostPort: 443}]}]
`
	res := simulateOn(t, nil, yaml, Input{})
	web := podsOf(res, "Pod/default/web")[0]
	want := "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 node(s) didn't have free ports for the requested pod ports. no new claims to deallocate, preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
	if web.Message != want {
		t.Errorf("web: %q\nwant %q", web.Message, want)
	}
}

// --max must agree with raising the replicas: k more fit, k+1 do not.
func TestMaxAgreesWithReplicas(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 700m, memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: iis}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Exists}]
      containers: [{name: c, image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022, resources: {requests: {cpu: "1", memory: 3Gi}}}]
`
	res := simulateOn(t, nil, yaml, Input{Max: []string{"Deployment/api", "Deployment/default/iis"}})
	for _, w := range []struct {
		ref  string
		base int32
	}{{"Deployment/default/api", 2}, {"Deployment/default/iis", 1}} {
		var more *int
		for _, wr := range res.Workloads {
			if wr.Workload == w.ref {
				more = wr.MoreFit
			}
		}
		if more == nil || *more == 0 {
			t.Fatalf("%s: MoreFit = %v, want a positive answer", w.ref, more)
		}
		name := strings.Split(w.ref, "/")[2]
		for extra, pending := range map[int]int{*more: 0, *more + 1: 1} {
			r := simulateOn(t, nil, yaml, Input{Replicas: map[string]int32{"Deployment/" + name: w.base + int32(extra)}})
			if got := r.Count().Pending; got != pending {
				t.Errorf("%s with %d more replicas: %d pending, want %d", w.ref, extra, got, pending)
			}
		}
	}
	if len(res.Pods) != 3 || res.Count().Pending != 0 {
		t.Errorf("answering --max changed the simulation: %+v", res.Count())
	}
}

// When a class with the best preferred-affinity score fills up, the
// normalization of NodeAffinity's scores changes for the remaining ones.
func TestNormalizationFollowsFeasibleNodes(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{
		testNode("x", map[string]string{"tier": "a", "disk": "ssd"}, nil, "1", "2Gi", 110),
		testNode("y", map[string]string{"disk": "ssd"}, nil, "2", "3Gi", 110),
		testNode("z", nil, nil, "64", "256Gi", 110),
	}
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 30, preference: {matchExpressions: [{key: tier, operator: In, values: [a]}]}}
          - {weight: 10, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "1", memory: 2Gi}}}]
`
	// Scores of the second pod: y 111 + 2*100 + 300, z 172 + 0 + 300;
	// with x's 40 still the maximum, y would get only 2*25.
	for _, opts := range []runOptions{{}, {generic: true}} {
		res, err := runWith(t.Context(), Input{Nodes: nodes, Objects: objects(t, yaml)}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"x", "y"}, nodesOf(res.Pods)); diff != "" {
			t.Errorf("node by node %v: placement (-want +got):\n%s", opts.generic, diff)
		}
	}
}

func TestSchedulingGates(t *testing.T) {
	t.Parallel()
	yaml := podYAML("gated", `
schedulingGates: [{name: example.com/quota}]
containers: [{name: c, image: nginx}]
`)
	p := simulateOn(t, nil, yaml, Input{}).Pods[0]
	if !p.Pending || p.Message != "Scheduling is blocked due to non-empty scheduling gates" || p.Node != "" {
		t.Errorf("gated pod: %+v", p)
	}
}
