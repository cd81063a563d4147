package simulate

import (
	"math"
	"math/rand/v2"
)

// defaultParallelism is kube-scheduler's default parallelism
// (pkg/scheduler/framework/parallelize DefaultParallelism).
const defaultParallelism = 16

// racedOrder is the order in which kube-scheduler's Filter extension point
// may finish checking nodes when it checks them in parallel
// (schedule_one.go findNodesThatPassFilters through parallelize.Until and
// workqueue.ParallelizeUntil): the n nodes, counted from
// nextStartNodeIndex, are cut into chunks of chunkSizeFor(n, parallelism);
// each of up to parallelism workers takes the next chunk and checks its
// nodes in turn; the search stops once enough feasible nodes are found.
// Which worker runs next is up to the Go runtime, so which nodes are found
// (and how far the next pod's search starts) differs from run to run in a
// cluster large enough to stop early. A seeded run draws one such
// interleaving: a uniformly chosen worker checks a run of its chunk's next
// nodes (1 to all that are left, uniformly) before another is chosen, so
// that both even progress and one worker running far ahead (goroutines
// start one after another on few cores) are drawn. With parallelism 1 the
// order is the sequential one.
type racedOrder struct {
	rng        *rand.Rand
	n, chunk   int
	nextChunk  int   // the first node of the next chunk to hand out
	pos, limit []int // each busy worker's next node and its chunk's end
	cur, burst int   // the worker running and how many more it checks
}

// chunkSizeFor is parallelize.chunkSizeFor.
func chunkSizeFor(n, parallelism int) int {
	s := int(math.Sqrt(float64(n)))
	if r := n/parallelism + 1; s > r {
		s = r
	} else if s < 1 {
		s = 1
	}
	return s
}

// reset starts a new search over n nodes.
func (r *racedOrder) reset(rng *rand.Rand, n, parallelism int) {
	r.rng, r.n = rng, n
	r.chunk = chunkSizeFor(n, max(parallelism, 1))
	workers := min(max(parallelism, 1), (n+r.chunk-1)/r.chunk)
	r.pos, r.limit, r.nextChunk, r.burst = r.pos[:0], r.limit[:0], 0, 0
	for range workers {
		r.take(-1)
	}
}

// take gives worker w (-1: a new worker) the next chunk, or retires it
// when none is left.
func (r *racedOrder) take(w int) {
	if r.nextChunk >= r.n {
		last := len(r.pos) - 1
		r.pos[w], r.limit[w] = r.pos[last], r.limit[last]
		r.pos, r.limit = r.pos[:last], r.limit[:last]
		switch r.cur {
		case w:
			r.cur = -1 // retired: no longer among the workers
		case last:
			r.cur = w // moved into w's place
		}
		return
	}
	start, end := r.nextChunk, min(r.nextChunk+r.chunk, r.n)
	r.nextChunk = end
	if w < 0 {
		r.pos, r.limit = append(r.pos, start), append(r.limit, end)
		return
	}
	r.pos[w], r.limit[w] = start, end
}

// next returns the next node checked (an offset from the search's start),
// false once every node has been.
func (r *racedOrder) next() (int, bool) {
	if len(r.pos) == 0 {
		return 0, false
	}
	if r.burst == 0 {
		r.cur = 0
		if len(r.pos) > 1 {
			r.cur = r.rng.IntN(len(r.pos))
		}
		r.burst = 1 + r.rng.IntN(r.limit[r.cur]-r.pos[r.cur])
	}
	w := r.cur
	i := r.pos[w]
	r.pos[w]++
	r.burst--
	if r.pos[w] == r.limit[w] {
		// The chunk is done: the worker takes the next one (or stops),
		// and the next step chooses again.
		r.take(w)
		r.burst = 0
	}
	return i, true
}

// inFlight returns, once the search has found enough nodes, the nodes
// other workers were checking at that moment (an offset each): a worker
// that had already passed its stop check finishes its node, and one that
// fails the filters is counted among the nodes processed (its status is
// recorded), which moves where the next pod's search starts. How many
// workers are caught mid-check is drawn: each is, with one probability
// drawn per search.
func (r *racedOrder) inFlight(out []int) []int {
	out = out[:0]
	p := r.rng.Float64()
	for w, pos := range r.pos {
		if w != r.cur && r.rng.Float64() < p {
			out = append(out, pos)
		}
	}
	return out
}
