package simulate

import (
	"slices"
)

// schedule decides where one pod of template t goes. target is the node
// a DaemonSet pod is made for (its matchFields term), nil otherwise.
func (s *scheduler) schedule(t *tmpl, target *node) decision {
	sp := t.sp
	if len(s.nodes) == 0 {
		return decision{noNodes: true}
	}
	if sp.conflict {
		// NodeAffinity's PreFilter rejects the pod before DynamicResources
		// has run.
		return decision{fit: &fitError{allNodes: len(s.nodes), preFilter: reasonTermsConflict, preemptionNever: sp.preemptNever}}
	}
	switch {
	case target != nil:
		return s.generic(t, []*node{target}, true)
	case sp.nodeNames != nil:
		var cands []*node
		for _, n := range s.nodes {
			if sp.nodeNames[n.name] {
				cands = append(cands, n)
			}
		}
		return s.generic(t, cands, true)
	case s.nodeByNode, s.scoredPath():
	case sp.simple() && !s.repelledBy(t):
		d, _ := s.fastSchedule(t, false) // unchecked, it always decides
		return d
	case !sp.perNode && !s.recordFeasible:
		if d, ok := s.fastSchedule(t, true); ok {
			return d
		}
	}
	return s.generic(t, s.nodes, false)
}

// generic runs every filter on every candidate node, in the scheduler's
// order, and scores the feasible ones. restricted says a PreFilter
// narrowed the nodes to cands. It is the scheduler's cycle in three
// steps: filter, then explain (no node fits) or pick.
func (s *scheduler) generic(t *tmpl, cands []*node, restricted bool) decision {
	f := s.filter(t, cands, restricted)
	if len(f.feasible) == 0 {
		return s.explain(t, &f, restricted)
	}
	var d decision
	if s.recordFeasible {
		d.feasible = slices.Clone(f.feasible)
	}
	d.node = s.pick(t, &f)
	return d
}

// filtered is what filter found: the candidates in the order visited, the
// feasible nodes with their static results, and the counts the dynamic
// filters read, which explain reads again.
type filtered struct {
	scoring  bool // the scheduler's full scoring path (scoredPath)
	cands    []*node
	feasible []*node
	statics  []static
	z        normalizer
	aff      *affinityCounts
	spread   *spreadCounts
}

// filter runs the filters over the candidates until the scheduler's
// percentageOfNodesToScore stops it, and advances the next cycle's start.
func (s *scheduler) filter(t *tmpl, cands []*node, restricted bool) filtered {
	sp := t.sp
	scoring := s.scoredPath()
	limit, start := len(cands), 0
	if scoring {
		if restricted {
			cands = s.visitOrder(cands)
		} else {
			cands, start, limit = s.tree, s.nextStart%len(s.tree), s.prof.numNodesToFind(len(s.nodes))
		}
	}
	f := filtered{scoring: scoring, cands: cands}
	if sp.affinity != nil || s.repelledBy(t) {
		f.aff = s.affinity(t)
	}
	if len(sp.spread) > 0 {
		f.spread = s.spreadState(t)
	}
	feasible, statics := s.scratch.feasible[:0], s.scratch.statics[:0]
	processed := 0
	// A seeded run draws the order parallel filters may finish in when
	// the search can stop early (racedOrder); otherwise nodes are
	// checked in order.
	raced := s.rand != nil && limit < len(cands) && s.prof.parallelism() > 1
	if raced {
		s.scratch.raced.reset(s.rand, len(cands), s.prof.parallelism())
	}
	for i := 0; i < len(cands); i++ {
		if len(feasible) == limit {
			break
		}
		j := i
		if raced {
			j, _ = s.scratch.raced.next()
		}
		n := cands[(start+j)%len(cands)]
		processed++
		st := s.static(t, n)
		if st.fail == nil && s.dynamic(t, n, f.aff, f.spread) == nil {
			feasible = append(feasible, n)
			statics = append(statics, st)
			f.z.see(st)
		}
	}
	if raced && len(feasible) == limit {
		// Nodes other workers were still checking when the search
		// stopped: those that fail are processed too.
		s.scratch.flight = s.scratch.raced.inFlight(s.scratch.flight)
		for _, j := range s.scratch.flight {
			n := cands[(start+j)%len(cands)]
			if st := s.static(t, n); st.fail != nil || s.dynamic(t, n, f.aff, f.spread) != nil {
				processed++
			}
		}
	}
	s.scratch.feasible, s.scratch.statics = feasible, statics
	f.feasible, f.statics = feasible, statics
	if scoring && len(s.nodes) > 0 {
		s.nextStart = (s.nextStart + processed) % len(s.nodes)
	}
	return f
}

// explain is the cycle where every node was visited and failed: a second
// pass gathers why, which a pod that fits somewhere never needs.
func (s *scheduler) explain(t *tmpl, f *filtered, restricted bool) decision {
	var d decision
	h := histogram{}
	preemptable := 0
	for _, n := range f.cands {
		st := s.static(t, n)
		fail := st.fail
		if fail == nil {
			fail = s.dynamic(t, n, f.aff, f.spread)
		}
		h.add(*fail, 1)
		if fail.resolvable {
			preemptable++
		}
		d.note(n.class, *fail, st.taint, 1)
	}
	if rest := len(s.nodes) - len(f.cands); restricted && rest > 0 {
		h[reasonAffinityPlugin] += rest
	}
	d.fit = &fitError{allNodes: len(s.nodes), byReason: h, preemptable: preemptable, preemptionNever: t.sp.preemptNever, draState: true}
	return d
}

// pick chooses among the feasible nodes: the scheduler's scoring, or,
// outside it, the best resource score, the lowest index on a tie.
func (s *scheduler) pick(t *tmpl, f *filtered) *node {
	if f.scoring {
		return s.scoredPick(t, f.feasible, f.statics, f.z)
	}
	best, bestScore := -1, int64(-1)
	for i, n := range f.feasible {
		if sc := resourceScore(t.sp, n) + f.z.score(f.statics[i]); sc > bestScore || (sc == bestScore && n.idx < f.feasible[best].idx) {
			best, bestScore = i, sc
		}
	}
	return f.feasible[best]
}

// scoredPath reports whether pods are placed as the scheduler's full
// scoring and node order decide. Under 100 nodes kube-scheduler scores
// every feasible node in a fixed order, and winkube does the same. From
// 100 nodes on it scores a rotating sample found by parallel filters, so
// which of several good nodes a pod gets is not reproducible; there the
// bucket paths score every feasible node by resources, node affinity and
// taints (topology spreading and inter-pod preferences left out, as the
// notes say), unless Input.FullScoring, a seed or a custom profile asks
// for the scheduler's own sampling and every score plugin.
func (s *scheduler) scoredPath() bool {
	return len(s.nodes) < s.scoredBelow || s.needsScoring()
}

// visitOrder puts the nodes a PreFilter left in the snapshot's order,
// from where the previous pod stopped.
func (s *scheduler) visitOrder(cands []*node) []*node {
	if len(cands) <= 1 {
		return cands
	}
	in := make(map[*node]bool, len(cands))
	for _, n := range cands {
		in[n] = true
	}
	out := make([]*node, 0, len(cands))
	for _, n := range s.tree {
		if in[n] {
			out = append(out, n)
		}
	}
	k := s.nextStart % len(out)
	return append(out[k:], out[:k]...)
}
