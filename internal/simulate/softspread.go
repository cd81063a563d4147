package simulate

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// softConstraint is a ScheduleAnyway topology spread constraint, the
// pod's own or the profile's default, as PodTopologySpread scores it.
type softConstraint struct {
	maxSkew       int64
	key           string
	selector      labels.Selector
	honorAffinity bool
	honorTaints   bool
}

// softSpread is what PodTopologySpread scores for a template: its
// constraints, and whether nodes must carry every constraint's key to be
// scored (not so for the system defaults, so nodes without a zone label
// are still spread by hostname).
type softSpread struct {
	constraints []softConstraint
	requireAll  bool
	// own says only the workload's own pods can match: a ReplicaSet's
	// selector (and a matchLabelKeys entry for pod-template-hash)
	// includes the pod-template-hash, which winkube's pods do not carry.
	own bool
}

// newSoftSpread reads the pod's ScheduleAnyway constraints or, when it
// has no constraints at all, the profile's defaults with the selector of
// the Services and controller that match it (helper.DefaultSelector). nil
// when PodTopologySpread has nothing to score.
func newSoftSpread(pod *corev1.Pod, prof *Profile, dflt labels.Selector, rsOwned bool) *softSpread {
	ss := &softSpread{}
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		ss.requireAll = true
		for _, c := range pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
				continue
			}
			if rsOwned && slices.Contains(c.MatchLabelKeys, "pod-template-hash") {
				ss.own = true
			}
			sc := softConstraint{maxSkew: int64(c.MaxSkew), key: c.TopologyKey, selector: constraintSelector(pod, &c)}
			sc.honorAffinity, sc.honorTaints = policiesOf(&c)
			ss.constraints = append(ss.constraints, sc)
		}
	} else if prof.PodTopologySpread > 0 && dflt != nil && !dflt.Empty() {
		ss.requireAll = !prof.SystemDefaulted
		ss.own = rsOwned
		for _, c := range prof.DefaultConstraints {
			if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
				continue
			}
			ss.constraints = append(ss.constraints, softConstraint{maxSkew: int64(c.MaxSkew), key: c.TopologyKey, selector: dflt, honorAffinity: true})
		}
	}
	if len(ss.constraints) == 0 {
		return nil
	}
	return ss
}

// matches reports whether bound pod p counts for constraint c of a pod
// of template t.
func (ss *softSpread) matches(c *softConstraint, t *tmpl, p *placed) bool {
	if p.ns != t.ns || (ss.own && p.sp != t.sp) || c.selector.Empty() {
		return false
	}
	return c.selector.Matches(p.labels)
}

// hasKeys reports whether labels l carry every constraint's key.
func (ss *softSpread) hasKeys(l map[string]string) bool {
	for _, c := range ss.constraints {
		if _, ok := l[c.key]; !ok {
			return false
		}
	}
	return true
}

// included reports whether node n's pods count for constraint c
// (matchNodeInclusionPolicies, and every key present when required).
func (ss *softSpread) included(c *softConstraint, sp *schedPod, n *node) bool {
	if ss.requireAll && !ss.hasKeys(n.obj.Labels) {
		return false
	}
	return inclusionPolicies(sp, n, c.honorAffinity, c.honorTaints)
}

// softCounts is the template's matching pods per constraint: per node (by
// node index) and per topology value over the included nodes, kept
// current with the cluster.
type softCounts struct {
	perNode [][]int32
	perTopo [][]int64 // by value id (topoIndex)
}

// topoIndex numbers the values of one node label: id per node index, -1
// where the node lacks the label.
type topoIndex struct {
	ids    []int32
	values int
}

// topology returns the index of label key over the nodes, built once.
func (s *scheduler) topology(key string) *topoIndex {
	if ti, ok := s.topoIndexes[key]; ok {
		return ti
	}
	ti := &topoIndex{ids: make([]int32, len(s.nodes))}
	seen := map[string]int32{}
	for _, n := range s.nodes {
		v, ok := n.obj.Labels[key]
		if !ok {
			ti.ids[n.idx] = -1
			continue
		}
		id, ok := seen[v]
		if !ok {
			id = int32(len(seen))
			seen[v] = id
		}
		ti.ids[n.idx] = id
	}
	ti.values = len(seen)
	if s.topoIndexes == nil {
		s.topoIndexes = map[string]*topoIndex{}
	}
	s.topoIndexes[key] = ti
	return ti
}

func (s *scheduler) countSoft(t *tmpl) *softCounts {
	ss := t.sp.soft
	sc := &softCounts{perNode: make([][]int32, len(ss.constraints)), perTopo: make([][]int64, len(ss.constraints))}
	for i, c := range ss.constraints {
		sc.perNode[i] = make([]int32, len(s.nodes))
		sc.perTopo[i] = make([]int64, s.topology(c.key).values)
	}
	for _, p := range s.placed {
		sc.add(s, t, p, 1)
	}
	return sc
}

// add counts one pod bound (delta 1) or removed (-1).
func (sc *softCounts) add(s *scheduler, t *tmpl, p *placed, delta int32) {
	ss := t.sp.soft
	for i := range ss.constraints {
		c := &ss.constraints[i]
		if !ss.matches(c, t, p) {
			continue
		}
		sc.perNode[i][p.node.idx] += delta
		if c.key != corev1.LabelHostname && ss.included(c, t.sp, p.node) {
			// A node without the key counts for no domain a scored
			// node can have.
			if id := s.topology(c.key).ids[p.node.idx]; id >= 0 {
				sc.perTopo[i][id] += int64(delta)
			}
		}
	}
}

// softScores is PodTopologySpread's Score and NormalizeScore over the
// feasible nodes, into out (one per feasible node).
func (s *scheduler) softScores(t *tmpl, feasible []*node, out []int64) {
	ss := t.sp.soft
	sc := s.softState(t)
	var tis [2]*topoIndex // the constraints' label indexes (at most two in practice)
	index := func(i int) *topoIndex {
		if i < len(tis) {
			if tis[i] == nil {
				tis[i] = s.topology(ss.constraints[i].key)
			}
			return tis[i]
		}
		return s.topology(ss.constraints[i].key)
	}
	ignored := func(n *node) bool {
		if !ss.requireAll {
			return false
		}
		for i := range ss.constraints {
			if index(i).ids[n.idx] < 0 {
				return true
			}
		}
		return false
	}
	weights := make([]float64, len(ss.constraints)) // one or two
	scored := 0
	for _, n := range feasible {
		if !ignored(n) {
			scored++
		}
	}
	for i, c := range ss.constraints {
		size := scored
		if c.key != corev1.LabelHostname {
			ti := index(i)
			seen := growBools(&s.scratch.seen, ti.values)
			size = 0
			missing := false
			for _, n := range feasible {
				id := ti.ids[n.idx]
				switch {
				case id < 0:
					missing = true
				case !seen[id] && !ignored(n):
					seen[id] = true
					size++
				}
			}
			if missing && !ss.requireAll {
				size++ // nodes without the key share the value ""
			}
		}
		weights[i] = math.Log(float64(size + 2))
	}
	minScore, maxScore := int64(math.MaxInt64), int64(0)
	for j, n := range feasible {
		if ignored(n) {
			out[j] = -1
			continue
		}
		var f float64
		for i, c := range ss.constraints {
			id := index(i).ids[n.idx]
			if id < 0 {
				continue
			}
			var cnt int64
			if c.key == corev1.LabelHostname {
				cnt = int64(sc.perNode[i][n.idx])
			} else {
				cnt = sc.perTopo[i][id]
			}
			f += float64(cnt)*weights[i] + float64(c.maxSkew-1)
		}
		out[j] = int64(math.Round(f))
		minScore, maxScore = min(minScore, out[j]), max(maxScore, out[j])
	}
	for j := range out[:len(feasible)] {
		switch {
		case out[j] < 0:
			out[j] = 0
		case maxScore == 0:
			out[j] = maxNodeScore
		default:
			out[j] = maxNodeScore * (maxScore + minScore - out[j]) / maxScore
		}
	}
}

// softState returns the template's counts, current with the cluster.
func (s *scheduler) softState(t *tmpl) *softCounts {
	if t.softCounts == nil || t.softEpoch != s.epoch {
		t.softCounts, t.softEpoch = s.countSoft(t), s.epoch
	}
	return t.softCounts
}

// growBools returns (*b)[:n] cleared, reallocating when too small.
func growBools(b *[]bool, n int) []bool {
	if cap(*b) < n {
		*b = make([]bool, n)
	}
	*b = (*b)[:n]
	clear(*b)
	return *b
}
