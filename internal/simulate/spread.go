package simulate

import (
	"math"

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

// spreadCounts is PodTopologySpread's PreFilter state: per constraint,
// matching pods per topology value over the eligible nodes, and the
// minimum over the values (the scheduler's critical paths), recomputed
// only after a change.
type spreadCounts struct {
	counts []map[string]int
	mins   []int
	fresh  bool
}

// eligible reports whether node n counts for constraint c of pod sp:
// it carries every constraint's key and passes the inclusion policies.
func eligible(sp *schedPod, c spreadConstraint, n *node) bool {
	for _, o := range sp.spread {
		if _, ok := n.obj.Labels[o.topologyKey]; !ok {
			return false
		}
	}
	return inclusionPolicies(sp, n, c.honorAffinity, c.honorTaints)
}

// inclusionPolicies is a spread constraint's matchNodeInclusionPolicies:
// with Honor, a node counts only when it matches the pod's required node
// affinity, or its NoSchedule and NoExecute taints are tolerated.
func inclusionPolicies(sp *schedPod, n *node, honorAffinity, honorTaints bool) bool {
	if honorAffinity {
		if ok, _ := sp.required.Match(n.obj); !ok {
			return false
		}
	}
	if honorTaints {
		if _, bad := untoleratedTaint(n.obj.Spec.Taints, sp.tolerations); bad {
			return false
		}
	}
	return true
}

// countSpread computes the state from every node and its pods.
func countSpread(sp *schedPod, ns string, nodes []*node) *spreadCounts {
	sc := &spreadCounts{counts: make([]map[string]int, len(sp.spread)), mins: make([]int, len(sp.spread))}
	for i := range sc.counts {
		sc.counts[i] = map[string]int{}
	}
	for _, n := range nodes {
		for i, c := range sp.spread {
			if !eligible(sp, c, n) {
				continue
			}
			v := n.obj.Labels[c.topologyKey]
			sc.counts[i][v] += countMatching(n.pods, c.selector, ns)
		}
	}
	return sc
}

// add counts one pod bound to n (delta 1) or removed (-1).
func (sc *spreadCounts) add(sp *schedPod, ns string, p *placed, delta int) {
	if p.ns != ns {
		return
	}
	for i, c := range sp.spread {
		if eligible(sp, c, p.node) && !c.selector.Empty() && c.selector.Matches(p.labels) {
			sc.counts[i][p.node.obj.Labels[c.topologyKey]] += delta
			sc.fresh = false
		}
	}
}

func countMatching(pods []*placed, sel labels.Selector, ns string) int {
	if sel.Empty() {
		return 0
	}
	n := 0
	for _, p := range pods {
		if p.ns == ns && sel.Matches(p.labels) {
			n++
		}
	}
	return n
}

// filter is PodTopologySpread's Filter for node labels nl.
func (sc *spreadCounts) filter(sp *schedPod, nl map[string]string) *status {
	if !sc.fresh {
		for i, c := range sp.spread {
			m := math.MaxInt32
			for _, n := range sc.counts[i] {
				m = min(m, n)
			}
			if len(sc.counts[i]) < c.minDomains {
				m = 0
			}
			sc.mins[i] = m
		}
		sc.fresh = true
	}
	for i, c := range sp.spread {
		v, ok := nl[c.topologyKey]
		if !ok {
			return statusSpreadLabel
		}
		if sc.counts[i][v]+c.selfMatchCount-sc.mins[i] > c.maxSkew {
			return statusSpread
		}
	}
	return nil
}
