package live

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
)

// The network plugin of each Windows pool, read from the live nodes so
// the NetworkPolicy and ICMP rules know what the pool enforces. A node
// says it through the annotations its CNI agent writes on the Node, or
// through the CNI DaemonSet pods running on it; a pool whose nodes
// disagree, or say nothing, stays unknown.

// cniPods maps words in a DaemonSet pod's owner name or image to its CNI.
var cniPods = []struct{ word, cni string }{
	{"calico", "calico"},
	{"antrea", "antrea"},
	{"flannel", "flannel"},
	{"azure-cns", "azure"},
	{"azure-cni", "azure"},
	{"azure-vnet", "azure"},
}

// npmPod: Azure Network Policy Manager's Windows DaemonSet (azure-npm-win),
// with which Azure CNI enforces NetworkPolicy on Windows nodes
// (learn.microsoft.com/azure/aks/use-network-policies).
const npmPod = "azure-npm"

// nodeNetwork is what one node says of its network.
type nodeNetwork struct {
	cni  string
	mode string // overlay or l2bridge, from flannel's backend
	npm  bool   // Azure NPM runs on it
}

// poolNetworks fills cni (and, for Azure CNI with NPM, networkPolicy;
// for flannel, the network mode of its backend) of the Windows pools of
// c, a cluster derived from s's nodes.
func poolNetworks(s *Snapshot, c *cluster.Cluster) {
	byNode := map[string]*nodeNetwork{}
	for _, n := range s.Nodes {
		if cluster.NodeOS(n) == "windows" {
			byNode[n.Name] = &nodeNetwork{cni: cluster.NodeCNI(n), mode: cluster.NodeNetworkMode(n)}
		}
	}
	for _, p := range s.Pods {
		nn := byNode[p.Spec.NodeName]
		if nn == nil || !daemonPod(p) {
			continue
		}
		what := podWords(p)
		if strings.Contains(what, npmPod) {
			nn.npm = true
			continue
		}
		if nn.cni == "" {
			for _, w := range cniPods {
				if strings.Contains(what, w.word) {
					nn.cni = w.cni
					break
				}
			}
		}
	}
	for i := range c.Pools {
		pool := &c.Pools[i]
		if pool.OS != "windows" {
			continue
		}
		cni, mode, npm, first := "", "", true, true
		for node, name := range c.ObservedPools {
			nn := byNode[node]
			if name != pool.Name || nn == nil {
				continue
			}
			if first {
				cni, mode, first = nn.cni, nn.mode, false
			}
			if nn.cni != cni {
				cni = "" // the nodes disagree: unknown
			}
			if nn.mode != mode {
				mode = ""
			}
			npm = npm && nn.npm
		}
		if cni == "" {
			continue
		}
		pool.CNI = cni
		if pool.NetworkMode == "" {
			pool.NetworkMode = mode
		}
		if cni == "azure" && npm {
			yes := true
			pool.NetworkPolicy = &yes
		}
	}
}

func daemonPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// podWords is the pod's owner name and images, lower case, for matching.
func podWords(p *corev1.Pod) string {
	var b strings.Builder
	for _, o := range p.OwnerReferences {
		b.WriteString(strings.ToLower(o.Name) + " ")
	}
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		b.WriteString(strings.ToLower(c.Image) + " ")
	}
	return b.String()
}
