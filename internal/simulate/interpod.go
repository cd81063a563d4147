package simulate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// placed is a pod bound to a node, as other pods' selectors see it.
type placed struct {
	ns     string
	labels labels.Set
	node   *node
	// anti are the pod's required anti-affinity terms, which later pods
	// must not match (InterPodAffinity's "existing pods" rule).
	anti  []term
	ports []hostPort
	sp    *schedPod
}

// term is a pod (anti-)affinity term ready to match pods.
type term struct {
	selector    labels.Selector
	namespaces  map[string]bool // nil: every namespace
	topologyKey string
}

func (t term) matches(ns string, l labels.Set) bool {
	return (t.namespaces == nil || t.namespaces[ns]) && t.selector.Matches(l)
}

// interPod holds a pod's required inter-pod affinity and anti-affinity.
type interPod struct {
	affinity, anti []term
	// nsSelector notes a namespaceSelector, which needs namespace labels
	// winkube does not have: such terms match every namespace.
	nsSelector bool
}

func newInterPod(pod *corev1.Pod) *interPod {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	ip := &interPod{}
	if a.PodAffinity != nil {
		ip.affinity = ip.terms(pod, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		ip.anti = ip.terms(pod, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if len(ip.affinity) == 0 && len(ip.anti) == 0 {
		return nil
	}
	return ip
}

// terms converts API terms. matchLabelKeys and mismatchLabelKeys are
// merged into the selector with the pod's own label values, as the API
// server does on create.
func (ip *interPod) terms(pod *corev1.Pod, in []corev1.PodAffinityTerm) []term {
	var out []term
	for _, t := range in {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil || t.LabelSelector == nil {
			sel = labels.Nothing()
		}
		for _, k := range t.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				if r, err := labels.NewRequirement(k, selection.In, []string{v}); err == nil {
					sel = sel.Add(*r)
				}
			}
		}
		for _, k := range t.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				if r, err := labels.NewRequirement(k, selection.NotIn, []string{v}); err == nil {
					sel = sel.Add(*r)
				}
			}
		}
		tm := term{selector: sel, topologyKey: t.TopologyKey}
		switch {
		case t.NamespaceSelector != nil:
			ip.nsSelector = ip.nsSelector || len(t.NamespaceSelector.MatchLabels)+len(t.NamespaceSelector.MatchExpressions) > 0
		case len(t.Namespaces) > 0:
			tm.namespaces = map[string]bool{}
			for _, ns := range t.Namespaces {
				tm.namespaces[ns] = true
			}
		default:
			tm.namespaces = map[string]bool{pod.Namespace: true}
		}
		if t.NamespaceSelector != nil && len(t.Namespaces) > 0 {
			// namespaces and namespaceSelector are ORed; without namespace
			// labels the selector is taken to match all.
			tm.namespaces = nil
		}
		out = append(out, tm)
	}
	return out
}

// topology counts pods per (key, value) of node labels.
type topology map[[2]string]int

// affinityCounts is InterPodAffinity's PreFilter state for one pod.
// antiKeys lists the topology keys existingAnti has ever counted, so a
// node is checked by key rather than by walking all its labels.
type affinityCounts struct {
	existingAnti, affinity, anti topology
	antiKeys                     []string
}

// countAffinity scans the bound pods for the incoming pod (namespace ns,
// labels l, terms ip).
func countAffinity(all []*placed, ns string, l labels.Set, ip *interPod) *affinityCounts {
	c := &affinityCounts{existingAnti: topology{}, affinity: topology{}, anti: topology{}}
	for _, p := range all {
		c.add(p, ns, l, ip, 1)
	}
	return c
}

// add counts (delta 1) or uncounts (-1) one bound pod.
func (c *affinityCounts) add(p *placed, ns string, l labels.Set, ip *interPod, delta int) {
	nl := p.node.obj.Labels
	for _, t := range p.anti {
		if v, ok := nl[t.topologyKey]; ok && t.matches(ns, l) {
			c.existingAnti[[2]string{t.topologyKey, v}] += delta
			if !slices.Contains(c.antiKeys, t.topologyKey) {
				c.antiKeys = append(c.antiKeys, t.topologyKey)
			}
		}
	}
	if ip == nil {
		return
	}
	for _, t := range ip.affinity {
		if v, ok := nl[t.topologyKey]; ok && t.matches(p.ns, p.labels) {
			c.affinity[[2]string{t.topologyKey, v}] += delta
		}
	}
	for _, t := range ip.anti {
		if v, ok := nl[t.topologyKey]; ok && t.matches(p.ns, p.labels) {
			c.anti[[2]string{t.topologyKey, v}] += delta
		}
	}
}

// filter is InterPodAffinity's Filter on node labels nl.
func (c *affinityCounts) filter(ns string, l labels.Set, ip *interPod, nl map[string]string) *status {
	if ip != nil && len(ip.affinity) > 0 && !c.satisfiesAffinity(ns, l, ip, nl) {
		return statusAffinity
	}
	if ip != nil && len(c.anti) > 0 {
		for _, t := range ip.anti {
			if v, ok := nl[t.topologyKey]; ok && c.anti[[2]string{t.topologyKey, v}] > 0 {
				return statusAntiAffinity
			}
		}
	}
	for _, k := range c.antiKeys {
		if v, ok := nl[k]; ok && c.existingAnti[[2]string{k, v}] > 0 {
			return statusExistingAnti
		}
	}
	return nil
}

func (c *affinityCounts) satisfiesAffinity(ns string, l labels.Set, ip *interPod, nl map[string]string) bool {
	exist := true
	for _, t := range ip.affinity {
		v, ok := nl[t.topologyKey]
		if !ok {
			return false
		}
		if c.affinity[[2]string{t.topologyKey, v}] <= 0 {
			exist = false
		}
	}
	if exist {
		return true
	}
	// The first pod of a group with affinity to itself may go anywhere
	// its terms' topology exists.
	if nonZero(c.affinity) {
		return false
	}
	for _, t := range ip.affinity {
		if !t.matches(ns, l) {
			return false
		}
	}
	return true
}

func nonZero(t topology) bool {
	for _, n := range t {
		if n > 0 {
			return true
		}
	}
	return false
}
