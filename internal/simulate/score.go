package simulate

import "math"

const maxNodeScore = 100

// Default profile weights of the score plugins winkube models.
const (
	weightFit          = 1 // NodeResourcesFit (LeastAllocated)
	weightBalanced     = 1 // NodeResourcesBalancedAllocation
	weightNodeAffinity = 2
	weightTaints       = 3 // TaintToleration
)

// resourceScore is NodeResourcesFit's LeastAllocated plus
// NodeResourcesBalancedAllocation for the pod on node n, both computed on
// CPU and memory with weight 1 as in the default profile.
func resourceScore(sp *schedPod, n *node) int64 {
	return weightFit*leastAllocated(sp, n) + weightBalanced*balanced(sp, n)
}

func leastAllocated(sp *schedPod, n *node) int64 {
	var score, weights int64
	for _, r := range [2][2]int64{
		{n.score[0] + sp.scoreCPU, n.alloc.MilliCPU},
		{n.score[1] + sp.scoreMem, n.alloc.Memory},
	} {
		requested, capacity := r[0], r[1]
		if capacity == 0 {
			continue
		}
		if requested <= capacity {
			score += (capacity - requested) * maxNodeScore / capacity
		}
		weights++
	}
	if weights == 0 {
		return 0
	}
	return score / weights
}

// balanced favours nodes whose CPU and memory use stay even; since v1.36
// it scores the change the pod brings. Best-effort pods score 0.
func balanced(sp *schedPod, n *node) int64 {
	if sp.bestEffort {
		return 0
	}
	with := balance(n.used.MilliCPU+sp.req.MilliCPU, n.used.Memory+sp.req.Memory, n)
	without := balance(n.used.MilliCPU, n.used.Memory, n)
	return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
}

func balance(cpu, mem int64, n *node) int64 {
	var fractions []float64
	for _, r := range [2][2]int64{{cpu, n.alloc.MilliCPU}, {mem, n.alloc.Memory}} {
		if r[1] == 0 {
			continue
		}
		fractions = append(fractions, math.Min(float64(r[0])/float64(r[1]), 1))
	}
	std := 0.0
	if len(fractions) == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	}
	return int64((1 - std) * maxNodeScore)
}

// normalized applies DefaultNormalizeScore to the static raw scores of
// the feasible nodes: NodeAffinity scaled to the best, TaintToleration
// reversed.
type normalizer struct{ maxAffinity, maxPrefer int64 }

func (z *normalizer) see(st static) {
	z.maxAffinity = max(z.maxAffinity, st.affinity)
	z.maxPrefer = max(z.maxPrefer, st.prefer)
}

func (z normalizer) score(st static) int64 {
	aff := int64(0)
	if z.maxAffinity > 0 {
		aff = maxNodeScore * st.affinity / z.maxAffinity
	}
	taint := int64(maxNodeScore)
	if z.maxPrefer > 0 {
		taint = maxNodeScore - maxNodeScore*st.prefer/z.maxPrefer
	}
	return weightNodeAffinity*aff + weightTaints*taint
}
