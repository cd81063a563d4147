package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
)

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
	if !n.balanceValid {
		n.balanceWithout, n.balanceValid = balance(n.used.MilliCPU, n.used.Memory, n), true
	}
	without := n.balanceWithout
	return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
}

func balance(cpu, mem int64, n *node) int64 {
	if n.alloc.MilliCPU == 0 || n.alloc.Memory == 0 {
		return maxNodeScore // one fraction or none: no deviation
	}
	c, m := float64(cpu)/float64(n.alloc.MilliCPU), float64(mem)/float64(n.alloc.Memory)
	if c > 1 {
		c = 1
	}
	if m > 1 {
		m = 1
	}
	std := (c - m) / 2
	if std < 0 {
		std = -std
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
	return z.weighted(st, &defaultWeights)
}

// defaultWeights are the default profile's, for the bucket paths.
var defaultWeights = Profile{NodeAffinity: weightNodeAffinity, TaintToleration: weightTaints}

// weighted is the normalized static scores with the profile's weights.
func (z normalizer) weighted(st static, prof *Profile) int64 {
	aff := int64(0)
	if z.maxAffinity > 0 {
		aff = maxNodeScore * st.affinity / z.maxAffinity
	}
	taint := int64(maxNodeScore)
	if z.maxPrefer > 0 {
		taint = maxNodeScore - maxNodeScore*st.prefer/z.maxPrefer
	}
	return prof.NodeAffinity*aff + prof.TaintToleration*taint
}

// scorer is the scheduler state the profile's scoring needs.
type scorer struct {
	prof *Profile
	// custom says prof scores otherwise than the default profile;
	// defaultFit that its NodeResourcesFit is the default LeastAllocated
	// over cpu and memory. Both are decided once, off the hot path.
	custom, defaultFit bool
	rand               *rand.Rand // set with Input.Seed
	ties               int        // pods bound by a tie between best nodes
}

func newScorer(p *Profile) scorer {
	d := DefaultProfile().Fit
	return scorer{prof: p, custom: !p.isDefault(),
		defaultFit: p.Fit.Type == d.Type && slices.Equal(p.Fit.Resources, d.Resources)}
}

// needsScoring reports whether pods must be scored node by node even in
// a large cluster: a seed asks for the scheduler's random ties, and a
// custom profile's weights are not the bucket paths' defaults.
func (s *scorer) needsScoring() bool {
	return s.rand != nil || s.custom
}

// resourceScore is NodeResourcesFit's score with the profile's strategy
// and BalancedAllocation's, weighted.
func (s *scorer) resourceScore(sp *schedPod, n *node) int64 {
	prof := s.prof
	if s.defaultFit {
		return prof.NodeResourcesFit*leastAllocated(sp, n) + prof.BalancedAllocation*balanced(sp, n)
	}
	return prof.NodeResourcesFit*fitScore(prof.Fit, sp, n) + prof.BalancedAllocation*balanced(sp, n)
}

// fitScore is NodeResourcesFit's score for a configured strategy over cpu
// and memory (other resources are not modelled).
func fitScore(f FitStrategy, sp *schedPod, n *node) int64 {
	var score, weights int64
	for _, r := range f.Resources {
		var requested, capacity int64
		switch r.Name {
		case "cpu":
			requested, capacity = n.score[0]+sp.scoreCPU, n.alloc.MilliCPU
		case "memory":
			requested, capacity = n.score[1]+sp.scoreMem, n.alloc.Memory
		default:
			continue
		}
		if capacity == 0 {
			continue
		}
		var rs int64
		switch f.Type {
		case MostAllocated:
			rs = min(requested, capacity) * maxNodeScore / capacity
		case RequestedToCapacityRatio:
			u := int64(maxNodeScore)
			if requested <= capacity {
				u = requested * maxNodeScore / capacity
			}
			if rs = shapeScore(f.Shape, u); rs <= 0 {
				continue
			}
		default:
			if requested <= capacity {
				rs = (capacity - requested) * maxNodeScore / capacity
			}
		}
		score += rs * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0
	}
	if f.Type == RequestedToCapacityRatio {
		return int64(math.Round(float64(score) / float64(weights)))
	}
	return score / weights
}

// shapeScore is helper.BuildBrokenLinearFunction over the shape, scores
// scaled from 0-10 to 0-100.
func shapeScore(shape []ShapePoint, p int64) int64 {
	sc := func(i int) int64 { return shape[i].Score * (maxNodeScore / 10) }
	for i := range shape {
		if p <= shape[i].Utilization {
			if i == 0 {
				return sc(0)
			}
			return sc(i-1) + (sc(i)-sc(i-1))*(p-shape[i-1].Utilization)/(shape[i].Utilization-shape[i-1].Utilization)
		}
	}
	if len(shape) == 0 {
		return 0
	}
	return sc(len(shape) - 1)
}
