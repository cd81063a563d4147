package plan

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// newState copies c so that changes leave the current cluster alone.
func newState(c *cluster.Cluster, m winsupport.Model) *state {
	cp := *c
	cp.Pools = make([]cluster.Pool, len(c.Pools))
	for i, p := range c.Pools {
		cp.Pools[i] = copyPool(p)
	}
	if c.Observed != nil {
		cp.Observed = make([]*corev1.Node, len(c.Observed))
		for i, n := range c.Observed {
			cp.Observed[i] = n.DeepCopy()
		}
		cp.ObservedPools = make(map[string]string, len(c.ObservedPools))
		for k, v := range c.ObservedPools {
			cp.ObservedPools[k] = v
		}
	}
	return &state{cluster: &cp, model: m, runtimeClasses: map[string]*nodev1.RuntimeClass{}}
}

func copyPool(p cluster.Pool) cluster.Pool {
	q := p
	if p.Labels != nil {
		q.Labels = make(map[string]string, len(p.Labels))
		for k, v := range p.Labels {
			q.Labels[k] = v
		}
	}
	q.Taints = append([]corev1.Taint(nil), p.Taints...)
	q.Zones = append([]string(nil), p.Zones...)
	return q
}

func (s *state) addPool(p cluster.Pool) {
	s.cluster.Pools = append(s.cluster.Pools, copyPool(p))
	if s.cluster.Observed == nil {
		return
	}
	nodes, pools := (&cluster.Cluster{Pools: []cluster.Pool{p}}).Nodes()
	s.cluster.Observed = append(s.cluster.Observed, nodes...)
	for k, v := range pools {
		s.cluster.ObservedPools[k] = v
	}
}

func (s *state) removePool(i int) {
	name := s.cluster.Pools[i].Name
	s.cluster.Pools = append(s.cluster.Pools[:i:i], s.cluster.Pools[i+1:]...)
	if s.cluster.Observed == nil {
		return
	}
	kept := s.cluster.Observed[:0:0]
	for _, n := range s.cluster.Observed {
		if s.cluster.ObservedPools[n.Name] == name {
			delete(s.cluster.ObservedPools, n.Name)
			continue
		}
		kept = append(kept, n)
	}
	s.cluster.Observed = kept
}

// syncObserved carries a pool's change onto the observed nodes of the
// pool: each node keeps what the pool does not describe (its name, zone,
// conditions) and takes the pool's new build, labels, taints and size.
func (s *state) syncObserved(before cluster.Pool, i int) {
	if s.cluster.Observed == nil {
		return
	}
	p := &s.cluster.Pools[i]
	var mine []*corev1.Node
	for _, n := range s.cluster.Observed {
		if s.cluster.ObservedPools[n.Name] == p.Name {
			mine = append(mine, n)
		}
	}
	for _, n := range mine {
		for k := range before.Labels {
			delete(n.Labels, k)
		}
		for k, v := range p.NodeLabels() {
			n.Labels[k] = v
		}
		if p.WindowsBuild != before.WindowsBuild {
			n.Status.NodeInfo.KernelVersion = p.WindowsBuild
		}
		n.Spec.Taints = retaint(n.Spec.Taints, before.Taints, p.Taints)
		if !p.CPU.Equal(before.CPU) || !p.Memory.Equal(before.Memory) || p.MaxPods != before.MaxPods {
			n.Status.Capacity, n.Status.Allocatable = p.Capacity(), p.Allocatable()
		}
	}
	switch {
	case p.Count < len(mine):
		drop := map[*corev1.Node]bool{}
		for _, n := range mine[p.Count:] {
			drop[n] = true
			delete(s.cluster.ObservedPools, n.Name)
		}
		kept := s.cluster.Observed[:0:0]
		for _, n := range s.cluster.Observed {
			if !drop[n] {
				kept = append(kept, n)
			}
		}
		s.cluster.Observed = kept
	case p.Count > len(mine) && len(mine) > 0:
		for j := len(mine); j < p.Count; j++ {
			n := mine[len(mine)-1].DeepCopy()
			n.Name = p.Name + "-planned-" + strconv.Itoa(j)
			n.Labels[cluster.LabelHostname] = n.Name
			s.cluster.Observed = append(s.cluster.Observed, n)
			s.cluster.ObservedPools[n.Name] = p.Name
		}
	}
}

// retaint replaces the pool's old taints on a node with its new ones,
// keeping taints the pool never described.
func retaint(node, before, after []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range node {
		if !cluster.HasTaint(before, t) {
			out = append(out, t)
		}
	}
	for _, t := range after {
		if !cluster.HasTaint(out, t) {
			out = append(out, t)
		}
	}
	return out
}
