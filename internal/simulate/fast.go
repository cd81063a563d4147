package simulate

import "sort"

// fastSchedule places a pod whose static filters are the same for every
// node of a class. Buckets the pod fits are taken in score order and, when
// checked, their nodes in name order until one passes the filters that
// read other pods (NodePorts, PodTopologySpread, InterPodAffinity): the
// first such node of the best score is the scheduler's choice. It reports
// false when only judging every node is exact (checked, and the scores
// or the failure depend on which nodes the other pods block): the caller
// then runs the generic cycle, whose full scan also explains a failure.
func (s *scheduler) fastSchedule(t *tmpl, checked bool) (decision, bool) {
	fs := t.fast
	if fs == nil || fs.epoch != s.epoch || fs.dirty {
		fs = s.buildFast(t)
		t.fast = fs
	}
	if checked && fs.scored {
		// NodeAffinity and TaintToleration normalize over the nodes that
		// pass every filter; when their raw scores differ between classes,
		// which classes the other pods block changes the ranking, so only
		// a node-by-node pass is exact.
		return decision{}, false
	}
	pass := func(*node) bool { return true }
	if checked {
		var aff *affinityCounts
		if t.sp.affinity != nil || s.repelledBy(t) {
			aff = s.affinity(t)
		}
		var spread *spreadCounts
		if len(t.sp.spread) > 0 {
			spread = s.spreadState(t)
		}
		pass = func(n *node) bool {
			if len(t.sp.ports) > 0 && !portsFit(t.sp.ports, n.ports) {
				return false
			}
			return s.topologyCheck(t, n, aff, spread) == nil
		}
	}
	var chosen *node
	var best int64
	var popped []cand
	for fs.heap.len() > 0 {
		c := fs.heap.top()
		if c.version != c.b.version {
			fs.heap.pop()
			continue
		}
		if chosen != nil && (c.score < best || c.idx > chosen.idx) {
			break
		}
		for _, n := range c.b.members.items {
			if chosen != nil && n.idx >= chosen.idx {
				break
			}
			if pass(n) {
				chosen, best = n, c.score
				break
			}
		}
		fs.heap.pop()
		popped = append(popped, c)
	}
	for _, c := range popped {
		fs.heap.push(c)
	}
	if chosen == nil {
		if checked {
			return decision{}, false
		}
		return s.fastFailure(t), true
	}
	d := decision{node: chosen}
	if s.recordFeasible {
		d.feasible = s.fastFeasible(t, fs)
	}
	return d, true
}

func (s *scheduler) buildFast(t *tmpl) *fastState {
	fs := &fastState{epoch: s.epoch, static: map[*class]static{}, norm: map[*class]int64{}, fitCount: map[*class]int{}}
	var z normalizer
	var fitting []*bucket
	for _, c := range s.classes {
		st := s.static(t, c.rep)
		if st.fail != nil {
			continue
		}
		for _, b := range c.sortedBuckets() {
			if bucketFits(t.sp, b) {
				fitting = append(fitting, b)
				fs.fitCount[c]++
			}
		}
		if fs.fitCount[c] > 0 {
			fs.static[c] = st
			z.see(st)
		}
	}
	for c, st := range fs.static {
		fs.norm[c] = z.score(st)
		if st.affinity != z.maxAffinity || st.prefer != z.maxPrefer {
			fs.scored = true
		}
	}
	for _, b := range fitting {
		fs.push(t.sp, b)
	}
	return fs
}

// fastFailure explains, bucket by bucket, why no node fits.
func (s *scheduler) fastFailure(t *tmpl) decision {
	var d decision
	h := histogram{}
	preemptable := 0
	for _, c := range s.classes {
		st := s.static(t, c.rep)
		if st.fail != nil {
			h.add(*st.fail, len(c.nodes))
			d.note(c, *st.fail, st.taint, len(c.nodes))
			continue
		}
		for _, b := range c.sortedBuckets() {
			r := insufficient(t.sp.req, c.rep.alloc, b.used, b.pods, c.rep.allowed)
			n := b.members.len()
			h.add(r, n)
			if r.resolvable {
				preemptable += n
			}
			d.note(c, r, nil, n)
		}
	}
	d.fit = &fitError{allNodes: len(s.nodes), byReason: h, preemptable: preemptable, preemptionNever: t.sp.preemptNever, draState: true}
	return d
}

// fastFeasible lists every node the pod fits.
func (s *scheduler) fastFeasible(t *tmpl, fs *fastState) []*node {
	var out []*node
	for c := range fs.static {
		for _, b := range c.buckets {
			if bucketFits(t.sp, b) {
				out = append(out, b.members.items...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].idx < out[j].idx })
	return out
}
