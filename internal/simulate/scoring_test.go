package simulate

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scoreHeap is the scheduler's nodeScoreHeap without randomizer: a max
// heap by score that keeps equal scores where they are.
type scoreHeap []struct {
	i     int
	score int64
}

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i].score > h[j].score }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any) {
	*h = append(*h, x.(struct {
		i     int
		score int64
	}))
}
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// heapRoot must pick what container/heap's Init and Pop pick, ties
// included.
func TestHeapRootIsContainerHeap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		n := 1 + rng.IntN(40)
		scores := make([]int64, n)
		h := make(scoreHeap, n)
		for i := range scores {
			scores[i] = int64(rng.IntN(4)) // many ties
			h[i].i, h[i].score = i, scores[i]
		}
		heap.Init(&h)
		want := heap.Pop(&h).(struct {
			i     int
			score int64
		}).i
		if got := heapRoot(scores, new([]int)); got != want {
			t.Fatalf("scores %v: heapRoot %d, container/heap %d", scores, got, want)
		}
	}
}

func TestTreeOrderInterleavesZones(t *testing.T) {
	t.Parallel()
	mk := func(name, zone string) *node {
		o := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
		if zone != "" {
			o.Labels[corev1.LabelTopologyZone] = zone
		}
		return &node{name: name, obj: o}
	}
	added := []*node{mk("a1", "a"), mk("a2", "a"), mk("b1", "b"), mk("n1", ""), mk("a3", "a"), mk("b2", "b")}
	var got []string
	for _, n := range treeOrder(added) {
		got = append(got, n.name)
	}
	if want := "a1 b1 n1 a2 b2 a3"; strings.Join(got, " ") != want {
		t.Errorf("tree order %v, want %s", got, want)
	}
}

func TestNumNodesToFind(t *testing.T) {
	t.Parallel()
	p := DefaultProfile()
	for _, c := range []struct{ all, want int }{{6, 6}, {99, 99}, {100, 100}, {500, 230}, {1000, 420}, {5000, 500}, {6000, 300}, {20000, 1000}} {
		if got := p.numNodesToFind(c.all); got != c.want {
			t.Errorf("numNodesToFind(%d) = %d, want %d", c.all, got, c.want)
		}
	}
	p.PercentageOfNodesToScore = 100
	if got := p.numNodesToFind(5000); got != 5000 {
		t.Errorf("at 100%%: %d", got)
	}
}

func TestFitStrategies(t *testing.T) {
	t.Parallel()
	n := &node{alloc: amounts{MilliCPU: 4000, Memory: 8 << 30}, score: [2]int64{1000, 2 << 30}}
	sp := &schedPod{scoreCPU: 1000, scoreMem: 2 << 30}
	// 50% of CPU and memory used with the pod.
	for _, c := range []struct {
		f    FitStrategy
		want int64
	}{
		{FitStrategy{Type: LeastAllocated, Resources: []ResourceWeight{{"cpu", 1}, {"memory", 1}}}, 50},
		{FitStrategy{Type: MostAllocated, Resources: []ResourceWeight{{"cpu", 1}, {"memory", 1}}}, 50},
		{FitStrategy{Type: RequestedToCapacityRatio, Resources: []ResourceWeight{{"cpu", 3}, {"memory", 1}},
			Shape: []ShapePoint{{0, 0}, {100, 10}}}, 50},
		{FitStrategy{Type: RequestedToCapacityRatio, Resources: []ResourceWeight{{"cpu", 1}},
			Shape: []ShapePoint{{0, 10}, {100, 0}}}, 50},
	} {
		if got := fitScore(c.f, sp, n); got != c.want {
			t.Errorf("%+v: %d, want %d", c.f, got, c.want)
		}
	}
	full := &node{alloc: amounts{MilliCPU: 1000, Memory: 1 << 30}, score: [2]int64{2000, 2 << 30}}
	if got := fitScore(FitStrategy{Type: MostAllocated, Resources: []ResourceWeight{{"cpu", 1}, {"memory", 1}}}, sp, full); got != 100 {
		t.Errorf("MostAllocated over capacity: %d, want 100", got)
	}
}

func TestParseSchedulerConfig(t *testing.T) {
	t.Parallel()
	good := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 30
parallelism: 4
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
      enabled: [{name: PodTopologySpread, weight: 5}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 2}, {name: memory}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}]
`
	p, err := ParseSchedulerConfig([]byte(good), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.PercentageOfNodesToScore != 30 || p.parallelism() != 4 || p.ImageLocality != 0 || p.PodTopologySpread != 5 || p.Fit.Type != MostAllocated ||
		fmt.Sprint(p.Fit.Resources) != "[{cpu 2} {memory 1}]" || p.SystemDefaulted || len(p.DefaultConstraints) != 1 || p.TaintToleration != 3 {
		t.Errorf("parsed %+v", p)
	}
	if p.isDefault() {
		t.Error("a changed profile reports itself as the default")
	}
	if !DefaultProfile().isDefault() {
		t.Error("the default profile is not default")
	}
	for _, bad := range []struct{ yaml, want string }{
		{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofilez: []\n", `unknown field "profilez"`},
		{"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", "want kubescheduler.config.k8s.io/v1"},
		{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: other}]\n", `no profile named "default-scheduler" (profiles: other)`},
		{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{plugins: {score: {enabled: [{name: MyScore}]}}}]\n", "score plugin MyScore is not modelled"},
		{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {typo: 1}}}]}]\n", `unknown field "typo"`},
	} {
		if _, err := ParseSchedulerConfig([]byte(bad.yaml), ""); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want it to contain %q", bad.yaml, err, bad.want)
		}
	}
}

func runNodes(t *testing.T, nodes []*corev1.Node, yaml string, in Input) *Result {
	t.Helper()
	in.Nodes, in.Objects = nodes, objects(t, yaml)
	res, err := Run(t.Context(), in)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

const twoReplicas = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
`

// The system default spreading moves the second replica to the smaller
// node, which resource scores alone would not. For the second pod, big
// scores LeastAllocated 99 + BalancedAllocation 75 + TaintToleration 3*100
// + PodTopologySpread 2*66 = 606 and small 97 + 74 + 300 + 2*100 = 671:
// raw spread scores round(1*ln(4)+2) = 3 and 2, normalized
// 100*(3+2-s)/3.
func TestDefaultSpreadingScoresReplicasApart(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{testNode("big", nil, nil, "32", "64Gi", 110), testNode("small", nil, nil, "4", "8Gi", 110)}
	res := runNodes(t, nodes, twoReplicas, Input{})
	if got := []string{res.Pods[0].Node, res.Pods[1].Node}; got[0] != "big" || got[1] != "small" {
		t.Errorf("replicas on %v, want [big small]", got)
	}
	// Without a selector the scheduler finds no controller or Service
	// selecting the pod, and spreads by resources only.
	bare := strings.Replace(strings.Replace(twoReplicas, "kind: Deployment", "kind: Job", 1), "  replicas: 2\n  selector: {matchLabels: {app: web}}\n", "  parallelism: 2\n  completions: 2\n", 1)
	bare = strings.Replace(bare, "apps/v1", "batch/v1", 1)
	bare = strings.Replace(bare, "    spec:\n", "    spec:\n      restartPolicy: Never\n", 1)
	res = runNodes(t, nodes, bare, Input{})
	if got := []string{res.Pods[0].Node, res.Pods[1].Node}; got[0] != "big" || got[1] != "big" {
		t.Errorf("Job pods on %v, want [big big]", got)
	}
}

func TestTiesAreCountedAndRanged(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{testNode("a", nil, nil, "4", "8Gi", 110), testNode("b", nil, nil, "4", "8Gi", 110)}
	one := strings.Replace(twoReplicas, "replicas: 2", "replicas: 1", 1)
	res := runNodes(t, nodes, one, Input{TieRuns: 16})
	if res.Ties != 1 || res.TieRuns != 16 {
		t.Fatalf("ties %d over %d runs, want 1 over 16", res.Ties, res.TieRuns)
	}
	got := fmt.Sprint(res.Workloads[0].Nodes)
	if got != "[{a 1 0 1} {b 0 0 1}]" {
		t.Errorf("per-node counts %s, want a 1 (0-1), b 0 (0-1)", got)
	}
	// A seed gives one concrete placement, the same every time.
	for _, seed := range []int64{1, 2, 3} {
		r1 := runNodes(t, nodes, one, Input{Seed: &seed, TieRuns: 16})
		r2 := runNodes(t, nodes, one, Input{Seed: &seed})
		if r1.Pods[0].Node != r2.Pods[0].Node || r1.TieRuns != 0 {
			t.Errorf("seed %d: %s then %s (tie runs %d)", seed, r1.Pods[0].Node, r2.Pods[0].Node, r1.TieRuns)
		}
	}
}
