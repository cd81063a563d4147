package simulate

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

func bucketFits(sp *schedPod, b *bucket) bool {
	rep := b.class.rep
	return fits(sp.req, rep.alloc, b.used, b.pods, rep.allowed)
}

func (fs *fastState) push(sp *schedPod, b *bucket) {
	n := b.members.min()
	fs.heap.push(cand{score: resourceScore(sp, n) + fs.norm[b.class], idx: n.idx, b: b, version: b.version})
}

// update follows a binding of a pod of template sp that moved a node
// from bucket from to bucket to.
func (fs *fastState) update(sp *schedPod, from, to *bucket) {
	c := from.class
	if from.members.len() > 0 {
		fs.push(sp, from)
	} else if fs.fitCount[c]--; fs.fitCount[c] == 0 && fs.scored {
		fs.dirty = true
	}
	if !bucketFits(sp, to) {
		return
	}
	if to.members.len() == 1 {
		fs.fitCount[c]++
	}
	fs.push(sp, to)
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
