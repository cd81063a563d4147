package policy

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// Drift compares an installed params ConfigMap with the cluster's nodes
// and says, one line each, where they disagree: whether the cluster is
// hybrid, and which Windows nodes' build and NoSchedule/NoExecute taints
// no pool of the ConfigMap has (the policies would judge workloads for
// taints or builds the nodes do not carry), which pools of the ConfigMap
// no node matches, and which nodes' windows-build labels the ConfigMap's
// builds lack (a pin on them would not be recognised). None means the
// ConfigMap describes the nodes. Pools are compared by build and taints,
// not by name: a cluster file's pool names are its own. A node whose own
// annotations name its CNI (flannel's and Calico's agents write them;
// cluster.NodeCNI) or, for flannel, its network mode is held to the
// pools it matches (the ICMP rule reads them); Unchecked lists the
// pools whose CNI no node shows.
func Drift(installed *corev1.ConfigMap, nodes []*corev1.Node, m winsupport.Model) []string {
	var out []string
	c := cluster.FromNodes(nodes)
	if got, want := installed.Data["hybrid"], fmt.Sprint(c.Hybrid()); got != want {
		out = append(out, fmt.Sprintf("hybrid is %q in the ConfigMap, but the nodes are %s", got, osCounts(nodes)))
	}
	pools := installedPools(installed)
	builds := map[string]bool{}
	for _, b := range strings.Split(installed.Data["builds"], ",") {
		builds[b] = true
	}
	matched := map[string]bool{}
	for _, n := range nodes {
		if cluster.NodeOS(n) != "windows" {
			continue
		}
		label := n.Labels[cluster.LabelWindowsBuild]
		sig := nodeSignature(n, m)
		var same []installedPool
		for _, p := range pools {
			if p.sig == sig {
				same, matched[p.name] = append(same, p), true
			}
		}
		if len(same) == 0 {
			out = append(out, fmt.Sprintf("node %s (%s) matches no Windows pool of the ConfigMap", n.Name, describeSig(sig)))
		}
		out = append(out, networkDrift(n, same)...)
		if label != "" && !builds[label] {
			out = append(out, fmt.Sprintf("node %s: windows-build %q is not among the ConfigMap's builds", n.Name, label))
		}
	}
	for _, p := range pools {
		if !matched[p.name] {
			out = append(out, fmt.Sprintf("Windows pool %q of the ConfigMap (%s) matches no node", p.name, describeSig(p.sig)))
		}
	}
	return out
}

// installedPool is a Windows pool of an installed params ConfigMap.
type installedPool struct{ name, sig, cni, mode string }

func installedPools(installed *corev1.ConfigMap) []installedPool {
	var pools []installedPool
	for _, l := range strings.Split(installed.Data["windowsPools"], "\n") {
		f := strings.Split(l, "|")
		if l == "" || len(f) < 3 {
			continue
		}
		p := installedPool{name: f[0], sig: signature(f[1], strings.Split(f[2], ","))}
		if len(f) > 6 {
			p.cni, p.mode = f[5], f[6]
		}
		pools = append(pools, p)
	}
	return pools
}

// networkDrift holds what a node's annotations say of its network to the
// ConfigMap's pools it matches: none of them may name another CNI (by
// cluster.CNIOf's name, so azure-vnet is azure) or network mode.
func networkDrift(n *corev1.Node, same []installedPool) []string {
	var out []string
	if cni := cluster.NodeCNI(n); cni != "" {
		for _, p := range same {
			if canonicalCNI(p.cni) != cni {
				out = append(out, fmt.Sprintf("node %s: its annotations show CNI %s, but Windows pool %q of the ConfigMap has cni %q", n.Name, cni, p.name, p.cni))
			}
		}
	}
	if mode := cluster.NodeNetworkMode(n); mode != "" {
		for _, p := range same {
			if p.mode != mode {
				out = append(out, fmt.Sprintf("node %s: its flannel backend means network mode %s, but Windows pool %q of the ConfigMap has mode %q", n.Name, mode, p.name, p.mode))
			}
		}
	}
	return out
}

func canonicalCNI(name string) string {
	if c, ok := cluster.CNIOf(name); ok {
		return c.Name
	}
	return strings.ToLower(name)
}

// Unchecked says, one line each, which Windows pools of the ConfigMap
// name a CNI that Drift could not hold to the nodes: no node of the pool
// (by build and taints) shows its CNI in its annotations. Only flannel
// and Calico annotate their nodes; Azure CNI, Antrea and the reference
// win-bridge/win-overlay plugins show their CNI through DaemonSet pods,
// which audit reads (winkube audit) and this check does not.
func Unchecked(installed *corev1.ConfigMap, nodes []*corev1.Node, m winsupport.Model) []string {
	shown := map[string]bool{}
	for _, n := range nodes {
		if cluster.NodeOS(n) != "windows" || cluster.NodeCNI(n) == "" {
			continue
		}
		shown[nodeSignature(n, m)] = true
	}
	var out []string
	for _, p := range installedPools(installed) {
		if p.cni != "" && !shown[p.sig] {
			out = append(out, fmt.Sprintf("the cni %q of Windows pool %q of the ConfigMap is not checked: none of its nodes shows a CNI in its annotations", p.cni, p.name))
		}
	}
	return out
}

// taintString is a taint as the params encode it.
func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// nodeSignature is the node's build and NoSchedule/NoExecute taints, as
// a pool of the params has them.
func nodeSignature(n *corev1.Node, m winsupport.Model) string {
	var taints []string
	for _, t := range n.Spec.Taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			taints = append(taints, taintString(t))
		}
	}
	return signature(buildNumber(m, n.Labels[cluster.LabelWindowsBuild]), taints)
}

// signature is a build and a set of taints, order-independent.
func signature(build string, taints []string) string {
	var ts []string
	for _, t := range taints {
		if t != "" {
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	return build + "|" + strings.Join(ts, ",")
}

func describeSig(sig string) string {
	build, taints, _ := strings.Cut(sig, "|")
	if build == "" {
		build = "no windows-build label"
	} else {
		build = "build " + build
	}
	if taints == "" {
		return build + ", untainted"
	}
	return build + ", taints " + taints
}

func osCounts(nodes []*corev1.Node) string {
	count := map[string]int{}
	for _, n := range nodes {
		count[cluster.NodeOS(n)]++
	}
	return fmt.Sprintf("%d Linux and %d Windows", count["linux"], count["windows"])
}
