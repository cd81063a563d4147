package simulate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// maxNodeScore is the scheduler framework's MaxNodeScore, the most a
// score plugin gives a node before its weight.
const maxNodeScore = 100

// Profile is the part of a kube-scheduler profile that decides where pods
// go: the score plugins' weights (0 disables one), NodeResourcesFit's
// scoring strategy, PodTopologySpread's default constraints,
// InterPodAffinity's arguments and percentageOfNodesToScore. The zero
// value is not usable; DefaultProfile is the default profile of
// kube-scheduler v1.36 (pkg/scheduler/apis/config/v1/default_plugins.go
// and defaults.go).
type Profile struct {
	Name string

	// Score plugin weights.
	TaintToleration, NodeAffinity, NodeResourcesFit, PodTopologySpread,
	InterPodAffinity, BalancedAllocation, ImageLocality int64

	// Fit is NodeResourcesFit's scoring strategy.
	Fit FitStrategy
	// BalancedResources are the resources BalancedAllocation compares
	// (cpu and memory by default; only cpu and memory are modelled).
	BalancedResources []string

	// DefaultConstraints are PodTopologySpread's constraints for pods
	// that have none; SystemDefaulted says they are the system's
	// (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway), which lets
	// nodes without the zone label still be scored on the hostname.
	DefaultConstraints []corev1.TopologySpreadConstraint
	SystemDefaulted    bool

	HardPodAffinityWeight              int64
	IgnorePreferredTermsOfExistingPods bool

	// PercentageOfNodesToScore is 0 for the adaptive default.
	PercentageOfNodesToScore int32
	// Parallelism is the configuration's parallelism, 0 for the default
	// (16): how many nodes the Filter extension point checks at once,
	// which seeded runs model (racedOrder). It changes no score.
	Parallelism int32
}

// parallelism is Parallelism, defaulted.
func (p *Profile) parallelism() int {
	if p.Parallelism > 0 {
		return int(p.Parallelism)
	}
	return defaultParallelism
}

// FitStrategy is NodeResourcesFit's scoringStrategy.
type FitStrategy struct {
	Type      string // LeastAllocated, MostAllocated or RequestedToCapacityRatio
	Resources []ResourceWeight
	// Shape is RequestedToCapacityRatio's utilization-to-score function.
	Shape []ShapePoint
}

// ResourceWeight is a resource a strategy scores, with its weight.
type ResourceWeight struct {
	Name   string
	Weight int64
}

// ShapePoint is one point of RequestedToCapacityRatio's shape: utilization
// 0-100 to score 0-10.
type ShapePoint struct{ Utilization, Score int64 }

// Strategy names, as KubeSchedulerConfiguration spells them.
const (
	LeastAllocated           = "LeastAllocated"
	MostAllocated            = "MostAllocated"
	RequestedToCapacityRatio = "RequestedToCapacityRatio"
)

// DefaultProfile is kube-scheduler's default-scheduler profile.
func DefaultProfile() *Profile {
	return &Profile{
		Name:            corev1.DefaultSchedulerName,
		TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, PodTopologySpread: 2,
		InterPodAffinity: 2, BalancedAllocation: 1, ImageLocality: 1,
		Fit:                   FitStrategy{Type: LeastAllocated, Resources: []ResourceWeight{{"cpu", 1}, {"memory", 1}}},
		BalancedResources:     []string{"cpu", "memory"},
		DefaultConstraints:    systemDefaultConstraints(),
		SystemDefaulted:       true,
		HardPodAffinityWeight: 1,
	}
}

// systemDefaultConstraints are PodTopologySpread's built-in defaults.
func systemDefaultConstraints() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{
		{MaxSkew: 3, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway},
		{MaxSkew: 5, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway},
	}
}

// isDefault reports whether p scores as the default profile does.
func (p *Profile) isDefault() bool {
	d := DefaultProfile()
	return p.TaintToleration == d.TaintToleration && p.NodeAffinity == d.NodeAffinity &&
		p.NodeResourcesFit == d.NodeResourcesFit && p.PodTopologySpread == d.PodTopologySpread &&
		p.InterPodAffinity == d.InterPodAffinity && p.BalancedAllocation == d.BalancedAllocation &&
		p.ImageLocality == d.ImageLocality && p.Fit.Type == d.Fit.Type && slices.Equal(p.Fit.Resources, d.Fit.Resources) &&
		p.SystemDefaulted && p.HardPodAffinityWeight == 1 && !p.IgnorePreferredTermsOfExistingPods &&
		p.PercentageOfNodesToScore == 0
}

// numNodesToFind is how many feasible nodes the scheduler looks for
// before it stops filtering (numFeasibleNodesToFind): all of them below
// 100 nodes, else an adaptive share, never fewer than 100.
func (p *Profile) numNodesToFind(all int) int {
	const minFeasible, minPercentage = 100, 5
	if all < minFeasible {
		return all
	}
	pct := p.PercentageOfNodesToScore
	if pct == 0 {
		pct = max(int32(50)-int32(all)/125, minPercentage)
	}
	n := int(int64(all) * int64(pct) / 100)
	return max(n, minFeasible)
}
