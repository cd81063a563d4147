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
	if p.PercentageOfNodesToScore != 30 || p.ImageLocality != 0 || p.PodTopologySpread != 5 || p.Fit.Type != MostAllocated ||
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
