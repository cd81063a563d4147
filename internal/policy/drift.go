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
// not by name: a cluster file's pool names are its own.
func Drift(installed *corev1.ConfigMap, nodes []*corev1.Node, m winsupport.Model) []string {
	var out []string
	c := cluster.FromNodes(nodes)
	if got, want := installed.Data["hybrid"], fmt.Sprint(c.Hybrid()); got != want {
		out = append(out, fmt.Sprintf("hybrid is %q in the ConfigMap, but the nodes are %s", got, osCounts(nodes)))
	}
	type pool struct{ name, sig string }
	var pools []pool
	for _, l := range strings.Split(installed.Data["windowsPools"], "\n") {
		f := strings.Split(l, "|")
		if l == "" || len(f) < 3 {
			continue
		}
		pools = append(pools, pool{f[0], signature(f[1], strings.Split(f[2], ","))})
	}
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
		var taints []string
		for _, t := range n.Spec.Taints {
			if t.Effect != corev1.TaintEffectPreferNoSchedule {
				taints = append(taints, taintString(t))
			}
		}
		sig := signature(buildNumber(m, label), taints)
		found := false
		for _, p := range pools {
			if p.sig == sig {
				found, matched[p.name] = true, true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("node %s (%s) matches no Windows pool of the ConfigMap", n.Name, describeSig(sig)))
		}
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

// taintString is a taint as the params encode it.
func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
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
