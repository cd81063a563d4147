package simulate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// drain runs a racedOrder over n nodes to the end.
func drain(rng *rand.Rand, n, parallelism int) []int {
	var r racedOrder
	r.reset(rng, n, parallelism)
	var out []int
	for {
		i, ok := r.next()
		if !ok {
			return out
		}
		out = append(out, i)
	}
}

func TestChunkSizeFor(t *testing.T) {
	t.Parallel()
	// parallelize.chunkSizeFor: sqrt(n), at most n/parallelism+1, at least 1.
	for _, c := range []struct{ n, p, want int }{{150, 16, 10}, {12, 16, 1}, {5000, 16, 70}, {100, 1, 10}, {0, 16, 1}} {
		if got := chunkSizeFor(c.n, c.p); got != c.want {
			t.Errorf("chunkSizeFor(%d, %d) = %d, want %d", c.n, c.p, got, c.want)
		}
	}
}

func TestRacedOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 7, 150, 1000} {
		if got := drain(rand.New(rand.NewPCG(1, 2)), n, 1); !slices.Equal(got, seq(n)) {
			t.Errorf("parallelism 1 over %d nodes: %v, want the sequential order", n, got)
		}
		for seed := range uint64(20) {
			got := drain(rand.New(rand.NewPCG(seed, 7)), n, defaultParallelism)
			if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, seq(n)) {
				t.Fatalf("seed %d over %d nodes: not every node once: %v", seed, n, got)
			}
			// Each chunk's nodes are checked in order by one worker.
			chunk := chunkSizeFor(n, defaultParallelism)
			last := map[int]int{}
			for _, i := range got {
				if prev, ok := last[i/chunk]; ok && prev > i {
					t.Fatalf("seed %d over %d nodes: node %d checked after %d of the same chunk", seed, n, i, prev)
				}
				last[i/chunk] = i
			}
		}
	}
	// The first 100 nodes checked of 150 differ between seeds: which ones
	// a search that stops early finds is the race.
	a := drain(rand.New(rand.NewPCG(1, 1)), 150, defaultParallelism)[:100]
	b := drain(rand.New(rand.NewPCG(2, 1)), 150, defaultParallelism)[:100]
	if slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))) {
		t.Error("two seeds found the same 100 of 150 nodes")
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestRacedOrderInFlight(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := map[int]bool{}
	for range 200 {
		var r racedOrder
		r.reset(rng, 150, defaultParallelism)
		checked := map[int]bool{}
		for range 100 {
			i, _ := r.next()
			checked[i] = true
		}
		flight := r.inFlight(nil)
		sizes[len(flight)] = true
		for _, i := range flight {
			if checked[i] || i < 0 || i >= 150 {
				t.Fatalf("in-flight node %d was already checked or is out of range", i)
			}
		}
	}
	// The number caught mid-check is drawn: none, some and many occur.
	if !sizes[0] || len(sizes) < 5 {
		t.Errorf("in-flight counts drawn: %v, want a spread including 0", sizes)
	}
}
