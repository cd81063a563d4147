package simulate

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

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
