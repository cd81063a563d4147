package simulate

// The scheduler's order of nodes. kube-scheduler's snapshot lists nodes
// zone by zone in turn (nodeTree.list): zones in the order their first
// node was added, each zone's nodes in the order they were added. Filters
// visit nodes in that order from where the previous pod stopped, and
// among equally scored nodes the one container/heap leaves at the root of
// the score heap built over the feasible nodes, in that order, is bound.

// scoredPick scores the feasible nodes (in the order the filters found
// them) with every score plugin of the profile and returns the one the
// scheduler binds.
func (s *scheduler) scoredPick(t *tmpl, feasible []*node, statics []static, z normalizer) *node {
	if len(feasible) == 1 {
		return feasible[0]
	}
	if s.rand != nil {
		s.rand.Shuffle(len(feasible), func(i, j int) {
			feasible[i], feasible[j] = feasible[j], feasible[i]
			statics[i], statics[j] = statics[j], statics[i]
		})
	}
	prof := s.prof
	total := grow(&s.scratch.total, len(feasible))
	for i, n := range feasible {
		total[i] = s.resourceScore(t.sp, n) + z.weighted(statics[i], prof)
	}
	buf := grow(&s.scratch.buf, len(feasible))
	if t.sp.soft != nil && prof.PodTopologySpread > 0 {
		s.softScores(t, feasible, buf)
		for i := range total {
			total[i] += prof.PodTopologySpread * buf[i]
		}
	}
	if prof.InterPodAffinity > 0 && s.interPodScores(t, prof, feasible, buf) {
		for i := range total {
			total[i] += prof.InterPodAffinity * buf[i]
		}
	}
	if prof.ImageLocality > 0 && s.images != nil {
		for i, n := range feasible {
			total[i] += prof.ImageLocality * s.images.score(t.sp, n)
		}
	}
	best := heapRoot(total, &s.scratch.heap)
	for i, sc := range total {
		if sc == total[best] && i != best {
			s.ties++
			break
		}
	}
	return feasible[best]
}

// grow returns (*b)[:n], reallocating when it is too small.
func grow(b *[]int64, n int) []int64 {
	if cap(*b) < n {
		*b = make([]int64, n)
	}
	return (*b)[:n]
}

// heapRoot is the index container/heap.Init leaves at the root of a max
// heap over scores (ties keep their heap positions, as the scheduler's
// nodeScoreHeap does when no extender sets a randomizer).
func heapRoot(scores []int64, scratch *[]int) int {
	n := len(scores)
	if cap(*scratch) < n {
		*scratch = make([]int, n)
	}
	idx := (*scratch)[:n]
	for i := range idx {
		idx[i] = i
	}
	less := func(i, j int) bool { return scores[idx[i]] > scores[idx[j]] }
	for i := n/2 - 1; i >= 0; i-- {
		for p := i; ; {
			j1 := 2*p + 1
			if j1 >= n || j1 < 0 {
				break
			}
			j := j1
			if j2 := j1 + 1; j2 < n && less(j2, j1) {
				j = j2
			}
			if !less(j, p) {
				break
			}
			idx[p], idx[j] = idx[j], idx[p]
			p = j
		}
	}
	return idx[0]
}
