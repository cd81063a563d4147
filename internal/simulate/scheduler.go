package simulate

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/winsupport"
)

// scheduler is the cluster state pods are placed into, one at a time.
type scheduler struct {
	m       winsupport.Model
	nodes   []*node // by name
	byName  map[string]*node
	classes []*class
	placed  []*placed
	// owners are bound pods with required anti-affinity, which every
	// later pod must be checked against.
	owners []*placed
	// ownersReset is bumped when an owner is unbound, so templates recheck
	// from the start.
	ownersReset uint64
	epoch       uint64 // bumped by every bind and unbind
	// recordFeasible keeps each pod's feasible node names; off for large
	// runs, where the lists would not fit in memory.
	recordFeasible bool
	// generic judges every pod node by node (tests compare it with the
	// bucket paths).
	nodeByNode bool

	scorer
	// tree is the nodes in the scheduler snapshot's order; nextStart is
	// where the next pod's filtering starts in it.
	tree      []*node
	nextStart int
	// anyAffinity is set once a pod with inter-pod terms is bound: from
	// then on every pod's InterPodAffinity score may differ by node.
	anyAffinity bool
	images      *nodeImages
	// scoredBelow is the cluster size under which every pod is scored
	// node by node (the scheduler then scores all feasible nodes).
	scoredBelow int
	scratch     scratch
	topoIndexes map[string]*topoIndex
}

// scratch is per-pod working memory the scheduler reuses.
type scratch struct {
	feasible   []*node
	statics    []static
	total, buf []int64
	seen       []bool
	heap       []int
	raced      racedOrder
	flight     []int
}

func newScheduler(nodes []*node, m winsupport.Model) *scheduler {
	s := &scheduler{m: m, nodes: nodes, byName: map[string]*node{}, classes: classesOf(nodes), scorer: newScorer(DefaultProfile()), scoredBelow: 100}
	added := slices.Clone(nodes)
	sort.SliceStable(added, func(i, j int) bool { return added[i].added < added[j].added })
	s.tree = treeOrder(added)
	for _, n := range nodes {
		s.byName[n.name] = n
	}
	return s
}

// static returns the static verdict for node n, per class when the pod
// cannot tell the class's nodes apart.
func (s *scheduler) static(t *tmpl, n *node) static {
	if t.sp.perNode {
		st, ok := t.nodeStatics[n]
		if !ok {
			st = staticFilters(t.sp, n.obj, s.m)
			t.nodeStatics[n] = st
		}
		return st
	}
	if id := n.class.id; id < len(t.byClass) && t.byClass[id] != nil {
		return *t.byClass[id]
	}
	st, ok := t.statics[n.class]
	if !ok {
		st = staticFilters(t.sp, n.class.rep.obj, s.m)
		t.statics[n.class] = st
	}
	if t.byClass == nil {
		t.byClass = make([]*static, len(s.classes))
	}
	if id := n.class.id; id < len(t.byClass) {
		t.byClass[id] = &st
	}
	return st
}

// repelledBy reports whether a bound pod's required anti-affinity could
// match the template, bringing InterPodAffinity into play.
func (s *scheduler) repelledBy(t *tmpl) bool {
	if t.ownersReset != s.ownersReset {
		t.owners, t.repelled, t.ownersReset = 0, false, s.ownersReset
	}
	for ; t.owners < len(s.owners); t.owners++ {
		for _, tm := range s.owners[t.owners].anti {
			if tm.matches(t.ns, t.labels) {
				t.repelled = true
			}
		}
	}
	return t.repelled
}

// affinity returns InterPodAffinity's counts for the template, current
// with the cluster state.
func (s *scheduler) affinity(t *tmpl) *affinityCounts {
	if t.aff == nil || t.affEpoch != s.epoch {
		t.aff, t.affEpoch = countAffinity(s.placed, t.ns, t.labels, t.sp.affinity), s.epoch
	}
	return t.aff
}

// spreadState returns PodTopologySpread's counts for the template.
func (s *scheduler) spreadState(t *tmpl) *spreadCounts {
	if t.spread == nil || t.spreadEpoch != s.epoch {
		t.spread, t.spreadEpoch = countSpread(t.sp, t.ns, s.nodes), s.epoch
	}
	return t.spread
}

// bind puts a pod of template t on n and brings the template's cached
// counts up to date.
func (s *scheduler) bind(t *tmpl, n *node, lbls labels.Set) *placed {
	sp := t.sp
	p := &placed{ns: t.ns, labels: lbls, node: n, sp: sp}
	if sp.affinity != nil {
		p.anti = sp.affinity.anti
	}
	for _, hp := range sp.ports {
		p.ports = append(p.ports, toHostPort(hp))
	}
	fastCurrent := t.fast != nil && t.fast.epoch == s.epoch && !t.fast.dirty
	old, now := s.move(n, p, 1)
	s.placed = append(s.placed, p)
	if len(p.anti) > 0 {
		s.owners = append(s.owners, p)
	}
	affCurrent := t.aff != nil && t.affEpoch == s.epoch
	spreadCurrent := t.spread != nil && t.spreadEpoch == s.epoch
	softCurrent := t.softCounts != nil && t.softEpoch == s.epoch
	if sp.prefs.attracts() {
		s.anyAffinity = true
	}
	s.epoch++
	if fastCurrent {
		t.fast.update(sp, old, now)
		t.fast.epoch = s.epoch
	}
	if affCurrent {
		t.aff.add(p, t.ns, t.labels, sp.affinity, 1)
		t.affEpoch = s.epoch
	}
	if spreadCurrent {
		t.spread.add(sp, t.ns, p, 1)
		t.spreadEpoch = s.epoch
	}
	if softCurrent {
		t.softCounts.add(sp, t.ns, p, 1)
		t.softEpoch = s.epoch
	}
	return p
}

// schedState is what of the scheduler's state a cycle can change without
// binding: a pod that stays pending leaves all of it as it was, unless a
// restricted search moved where the next one starts.
type schedState struct {
	epoch, ownersReset uint64
	nextStart          int
}

func (s *scheduler) state() schedState {
	return schedState{epoch: s.epoch, ownersReset: s.ownersReset, nextStart: s.nextStart}
}

// unbind removes the most recently bound pod.
func (s *scheduler) unbind() {
	p := s.placed[len(s.placed)-1]
	s.placed = s.placed[:len(s.placed)-1]
	if len(s.owners) > 0 && s.owners[len(s.owners)-1] == p {
		s.owners = s.owners[:len(s.owners)-1]
		s.ownersReset++
	}
	s.move(p.node, p, -1)
	s.epoch++
}

// move adds (delta 1) or removes (-1, the node's last pod) p's usage on n,
// moving n to the bucket of its new usage; it returns both buckets.
func (s *scheduler) move(n *node, p *placed, delta int64) (from, to *bucket) {
	sp := p.sp
	from = n.bucket
	n.class.leave(n)
	n.balanceValid = false
	n.used.MilliCPU += delta * sp.req.MilliCPU
	n.used.Memory += delta * sp.req.Memory
	n.used.Ephemeral += delta * sp.req.Ephemeral
	n.used.Scalar = n.used.Scalar.plus(sp.req.Scalar, delta)
	n.score[0] += delta * sp.scoreCPU
	n.score[1] += delta * sp.scoreMem
	if delta > 0 {
		n.pods = append(n.pods, p)
		n.ports = append(n.ports, p.ports...)
	} else {
		n.pods = n.pods[:len(n.pods)-1]
		n.ports = n.ports[:len(n.ports)-len(p.ports)]
	}
	n.class.join(n)
	return from, n.bucket
}

// dynamic runs the filters that read what is bound to n: NodePorts,
// NodeResourcesFit, PodTopologySpread and InterPodAffinity.
func (s *scheduler) dynamic(t *tmpl, n *node, aff *affinityCounts, spread *spreadCounts) *status {
	sp := t.sp
	if len(sp.ports) > 0 && !portsFit(sp.ports, n.ports) {
		return statusPorts
	}
	if !fits(sp.req, n.alloc, n.used, len(n.pods), n.allowed) {
		r := insufficient(sp.req, n.alloc, n.used, len(n.pods), n.allowed)
		return &r
	}
	return s.topologyCheck(t, n, aff, spread)
}

// topologyCheck runs the filters that read other pods' placement:
// PodTopologySpread and InterPodAffinity.
func (s *scheduler) topologyCheck(t *tmpl, n *node, aff *affinityCounts, spread *spreadCounts) *status {
	sp := t.sp
	if spread != nil {
		if f := spread.filter(sp, n.obj.Labels); f != nil {
			return f
		}
	}
	if aff != nil {
		return aff.filter(t.ns, t.labels, sp.affinity, n.obj.Labels)
	}
	return nil
}
