package simulate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// spreadConstraint is a DoNotSchedule topology spread constraint.
type spreadConstraint struct {
	maxSkew        int
	topologyKey    string
	selector       labels.Selector
	minDomains     int
	honorAffinity  bool // nodeAffinityPolicy: Honor (the default)
	honorTaints    bool // nodeTaintsPolicy: Honor (default Ignore)
	selfMatchCount int  // 1 when the pod matches its own selector
}

// spreadConstraints reads the pod's hard constraints. The scheduler's
// system default constraints are ScheduleAnyway, so they never filter.
func spreadConstraints(pod *corev1.Pod) []spreadConstraint {
	var out []spreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sel := constraintSelector(pod, &c)
		sc := spreadConstraint{maxSkew: int(c.MaxSkew), topologyKey: c.TopologyKey, selector: sel, minDomains: 1}
		if c.MinDomains != nil {
			sc.minDomains = int(*c.MinDomains)
		}
		sc.honorAffinity, sc.honorTaints = policiesOf(&c)
		if sel.Matches(labels.Set(pod.Labels)) {
			sc.selfMatchCount = 1
		}
		out = append(out, sc)
	}
	return out
}

// constraintSelector is a constraint's label selector with its
// matchLabelKeys added as `key in (the pod's value)`; a selector that
// does not parse selects nothing.
func constraintSelector(pod *corev1.Pod, c *corev1.TopologySpreadConstraint) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		sel = labels.Nothing()
	}
	for _, k := range c.MatchLabelKeys {
		if v, ok := pod.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.In, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// policiesOf reads a constraint's nodeAffinityPolicy (Honor by
// default) and nodeTaintsPolicy (Ignore by default).
func policiesOf(c *corev1.TopologySpreadConstraint) (honorAffinity, honorTaints bool) {
	honorAffinity = c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor
	honorTaints = c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	return honorAffinity, honorTaints
}

// softConstraint is a ScheduleAnyway topology spread constraint, the
// pod's own or the profile's default, as PodTopologySpread scores it.
type softConstraint struct {
	maxSkew       int64
	key           string
	selector      labels.Selector
	honorAffinity bool
	honorTaints   bool
}

// softSpread is what PodTopologySpread scores for a template: its
// constraints, and whether nodes must carry every constraint's key to be
// scored (not so for the system defaults, so nodes without a zone label
// are still spread by hostname).
type softSpread struct {
	constraints []softConstraint
	requireAll  bool
	// own says only the workload's own pods can match: a ReplicaSet's
	// selector (and a matchLabelKeys entry for pod-template-hash)
	// includes the pod-template-hash, which winkube's pods do not carry.
	own bool
}

// newSoftSpread reads the pod's ScheduleAnyway constraints or, when it
// has no constraints at all, the profile's defaults with the selector of
// the Services and controller that match it (helper.DefaultSelector). nil
// when PodTopologySpread has nothing to score.
func newSoftSpread(pod *corev1.Pod, prof *Profile, dflt labels.Selector, rsOwned bool) *softSpread {
	ss := &softSpread{}
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		ss.requireAll = true
		for _, c := range pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
				continue
			}
			if rsOwned && slices.Contains(c.MatchLabelKeys, "pod-template-hash") {
				ss.own = true
			}
			sc := softConstraint{maxSkew: int64(c.MaxSkew), key: c.TopologyKey, selector: constraintSelector(pod, &c)}
			sc.honorAffinity, sc.honorTaints = policiesOf(&c)
			ss.constraints = append(ss.constraints, sc)
		}
	} else if prof.PodTopologySpread > 0 && dflt != nil && !dflt.Empty() {
		ss.requireAll = !prof.SystemDefaulted
		ss.own = rsOwned
		for _, c := range prof.DefaultConstraints {
			if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
				continue
			}
			ss.constraints = append(ss.constraints, softConstraint{maxSkew: int64(c.MaxSkew), key: c.TopologyKey, selector: dflt, honorAffinity: true})
		}
	}
	if len(ss.constraints) == 0 {
		return nil
	}
	return ss
}

// hasKeys reports whether labels l carry every constraint's key.
func (ss *softSpread) hasKeys(l map[string]string) bool {
	for _, c := range ss.constraints {
		if _, ok := l[c.key]; !ok {
			return false
		}
	}
	return true
}
