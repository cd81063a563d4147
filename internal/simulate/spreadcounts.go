package simulate

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

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

// matches reports whether bound pod p counts for constraint c of a pod
// of template sp in namespace ns.
func (ss *softSpread) matches(c *softConstraint, sp *schedPod, ns string, p *placed) bool {
	if p.ns != ns || (ss.own && p.sp != sp) || c.selector.Empty() {
		return false
	}
	return c.selector.Matches(p.labels)
}

// included reports whether node n's pods count for constraint c
// (matchNodeInclusionPolicies, and every key present when required).
func (ss *softSpread) included(c *softConstraint, sp *schedPod, n *node) bool {
	if ss.requireAll && !ss.hasKeys(n.obj.Labels) {
		return false
	}
	return inclusionPolicies(sp, n, c.honorAffinity, c.honorTaints)
}

// softCounts is the template's matching pods per constraint: per node (by
// node index) and per topology value over the included nodes, kept
// current with the cluster.
type softCounts struct {
	perNode [][]int32
	perTopo [][]int64    // by value id (topoIndex)
	topos   []*topoIndex // each constraint's label index
}

// topoIndex numbers the values of one node label: id per node index, -1
// where the node lacks the label.
type topoIndex struct {
	ids    []int32
	values int
}

// add counts one pod bound (delta 1) or removed (-1).
func (sc *softCounts) add(sp *schedPod, ns string, p *placed, delta int32) {
	ss := sp.soft
	for i := range ss.constraints {
		c := &ss.constraints[i]
		if !ss.matches(c, sp, ns, p) {
			continue
		}
		sc.perNode[i][p.node.idx] += delta
		if c.key != corev1.LabelHostname && ss.included(c, sp, p.node) {
			// A node without the key counts for no domain a scored
			// node can have.
			if id := sc.topos[i].ids[p.node.idx]; id >= 0 {
				sc.perTopo[i][id] += int64(delta)
			}
		}
	}
}
