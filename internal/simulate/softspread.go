package simulate

import (
	"math"

	corev1 "k8s.io/api/core/v1"
)

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
	sc := &softCounts{perNode: make([][]int32, len(ss.constraints)), perTopo: make([][]int64, len(ss.constraints)), topos: make([]*topoIndex, len(ss.constraints))}
	for i, c := range ss.constraints {
		sc.topos[i] = s.topology(c.key)
		sc.perNode[i] = make([]int32, len(s.nodes))
		sc.perTopo[i] = make([]int64, sc.topos[i].values)
	}
	for _, p := range s.placed {
		sc.add(t.sp, t.ns, p, 1)
	}
	return sc
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
