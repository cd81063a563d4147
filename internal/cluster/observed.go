package cluster

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

// poolLabels are the node labels managed Kubernetes services use to name a
// node's pool, in the order they are tried.
var poolLabels = []string{
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"eks.amazonaws.com/nodegroup",
	"alpha.eksctl.io/nodegroup-name",
	"cloud.google.com/gke-nodepool",
	"node.kubernetes.io/pool",
}

// perNodeLabels differ from node to node of one pool and say nothing
// about the pool.
var perNodeLabels = map[string]bool{
	LabelHostname: true, LabelZone: true, "failure-domain.beta.kubernetes.io/zone": true,
	"topology.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/region": true,
}

// FromNodes builds a cluster from observed nodes. The nodes are kept as
// they are; pools are derived for the lint profile and for per-pool
// summaries: by the provider's pool label when there is one, otherwise by
// OS, Windows build and taints.
func FromNodes(nodes []*corev1.Node) *Cluster {
	c := &Cluster{Observed: nodes, ObservedPools: map[string]string{}}
	index := map[string]int{}
	for _, n := range nodes {
		key, name := poolKey(n)
		i, ok := index[key]
		if !ok {
			i = len(c.Pools)
			index[key] = i
			c.Pools = append(c.Pools, observedPool(uniquePoolName(c.Pools, name), n))
		}
		p := &c.Pools[i]
		p.Count++
		if z := n.Labels[LabelZone]; z != "" && !slices.Contains(p.Zones, z) {
			p.Zones = append(p.Zones, z)
		}
		for k, v := range p.Labels {
			if n.Labels[k] != v {
				delete(p.Labels, k) // keep only the labels every node has
			}
		}
		c.ObservedPools[n.Name] = p.Name
	}
	return c
}

func poolKey(n *corev1.Node) (key, name string) {
	for _, l := range poolLabels {
		if v := n.Labels[l]; v != "" {
			return l + "=" + v, v
		}
	}
	os := NodeOS(n)
	name = os
	if b := n.Labels[LabelWindowsBuild]; b != "" {
		name += "-" + strings.ReplaceAll(b, ".", "-")
	}
	var taints []string
	for _, t := range n.Spec.Taints {
		taints = append(taints, t.ToString())
	}
	sort.Strings(taints)
	return name + "|" + strings.Join(taints, ","), name
}

func uniquePoolName(pools []Pool, name string) string {
	taken := func(s string) bool {
		for _, p := range pools {
			if p.Name == s {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s-%d", name, i)
	}
	return out
}

func observedPool(name string, n *corev1.Node) Pool {
	p := Pool{Name: name, OS: NodeOS(n), Arch: n.Labels[LabelArch], Taints: append([]corev1.Taint(nil), n.Spec.Taints...)}
	if p.OS == "windows" {
		p.WindowsBuild = buildOf(n.Labels[LabelWindowsBuild])
	}
	capacity := n.Status.Capacity
	if len(capacity) == 0 {
		capacity = n.Status.Allocatable
	}
	p.CPU, p.Memory = capacity[corev1.ResourceCPU], capacity[corev1.ResourceMemory]
	p.EphemeralStorage = capacity[corev1.ResourceEphemeralStorage]
	if pods, ok := capacity[corev1.ResourcePods]; ok {
		p.MaxPods = int(pods.Value())
	}
	p.Reserved = corev1.ResourceList{}
	for name, c := range capacity {
		if a, ok := n.Status.Allocatable[name]; ok && name != corev1.ResourcePods {
			c.Sub(a)
			p.Reserved[name] = c
		}
	}
	p.Labels = map[string]string{}
	for k, v := range n.Labels {
		if !perNodeLabels[k] && !osKeys[k] {
			p.Labels[k] = v
		}
	}
	return p
}

// osKeys are set by NodeLabels from the pool's OS and build.
var osKeys = map[string]bool{LabelOS: true, LabelOSBeta: true, LabelArch: true, "beta.kubernetes.io/arch": true, LabelWindowsBuild: true}

// NodeOS is the node's operating system: its kubernetes.io/os label, or
// what the kubelet reported, linux when neither says.
func NodeOS(n *corev1.Node) string {
	if os := n.Labels[LabelOS]; os != "" {
		return os
	}
	if os := n.Status.NodeInfo.OperatingSystem; os != "" {
		return os
	}
	return "linux"
}

// KernelBuild is the node's Windows build from its kernel version
// (10.0.20348.2461 is build 10.0.20348), "" when unknown.
func KernelBuild(n *corev1.Node) string {
	b, _ := winsupport.KernelBuild(n.Status.NodeInfo.KernelVersion)
	return b
}

// NodeBuild is the node's Windows build from its kernel version, else
// from its node.kubernetes.io/windows-build label; "" when neither says.
func NodeBuild(n *corev1.Node) string {
	if b := KernelBuild(n); b != "" {
		return b
	}
	return n.Labels[LabelWindowsBuild]
}

// buildOf trims a longer Windows version (10.0.20348.2461) to its build.
func buildOf(v string) string {
	if b, ok := winsupport.KernelBuild(v); ok {
		return b
	}
	return v
}
