package simulate

import "sort"

// fastState is the fast path's view for one template: every bucket the
// pod fits, in a heap by score, kept current across the template's own
// bindings so consecutive replicas cost O(log buckets) each.
type fastState struct {
	epoch    uint64
	heap     candHeap
	static   map[*class]static
	norm     map[*class]int64 // normalized static score per feasible class
	fitCount map[*class]int   // fitting buckets per class
	// scored is set when a static score differs between classes, so a
	// class dropping out changes the normalization and forces a rebuild.
	scored bool
	dirty  bool
}

// cand is a bucket's best node and score at the bucket's version.
type cand struct {
	score   int64
	idx     int
	b       *bucket
	version uint64
}

// fastSchedule places a pod whose static filters are the same for every
// node of a class. Buckets the pod fits are taken in score order and, when
// checked, their nodes in name order until one passes the filters that
// read other pods (NodePorts, PodTopologySpread, InterPodAffinity): the
// first such node of the best score is the scheduler's choice. When none
// passes, a full scan explains why.
func (s *scheduler) fastSchedule(t *tmpl, checked bool) decision {
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
		return s.generic(t, s.nodes, false)
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
			return s.generic(t, s.nodes, false)
		}
		return s.fastFailure(t)
	}
	d := decision{node: chosen}
	if s.recordFeasible {
		d.feasible = s.fastFeasible(t, fs)
	}
	return d
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

func bucketFits(sp *schedPod, b *bucket) bool {
	rep := b.class.rep
	return fits(sp.req, rep.alloc, b.used, b.pods, rep.allowed)
}

func (fs *fastState) push(sp *schedPod, b *bucket) {
	n := b.members.min()
	fs.heap.push(cand{score: resourceScore(sp, n) + fs.norm[b.class], idx: n.idx, b: b, version: b.version})
}

// fastUpdate follows a binding of the template's pod that moved a node
// from bucket from to bucket to.
func (s *scheduler) fastUpdate(t *tmpl, from, to *bucket) {
	fs := t.fast
	c := from.class
	if from.members.len() > 0 {
		fs.push(t.sp, from)
	} else if fs.fitCount[c]--; fs.fitCount[c] == 0 && fs.scored {
		fs.dirty = true
	}
	if !bucketFits(t.sp, to) {
		return
	}
	if to.members.len() == 1 {
		fs.fitCount[c]++
	}
	fs.push(t.sp, to)
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
	d.fit = &fitError{allNodes: len(s.nodes), filter: h, preemptable: preemptable, preemptionNever: t.sp.preemptNever, draState: true}
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

// candHeap is a max-heap of candidates by score, then by name order.
type candHeap struct{ items []cand }

func (h *candHeap) len() int  { return len(h.items) }
func (h *candHeap) top() cand { return h.items[0] }

func (h *candHeap) less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return a.score > b.score || (a.score == b.score && a.idx < b.idx)
}

func (h *candHeap) push(c cand) {
	h.items = append(h.items, c)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *candHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(h.items) && h.less(l, best) {
			best = l
		}
		if r := l + 1; r < len(h.items) && h.less(r, best) {
			best = r
		}
		if best == i {
			return
		}
		h.items[i], h.items[best] = h.items[best], h.items[i]
		i = best
	}
}
