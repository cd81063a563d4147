package simulate

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// daemonTargets lists the nodes the DaemonSet controller creates a pod
// for (NodeShouldRunDaemonPod): the template's node name, if any, its
// node selector and required node affinity, and its taints against the
// tolerations the controller adds. The controller knows nothing of
// RuntimeClasses: their scheduling is merged into the pods afterwards.
func daemonTargets(pod *corev1.Pod, nodes []*node) []*node {
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	var out []*node
	for _, n := range nodes {
		if pod.Spec.NodeName != "" && pod.Spec.NodeName != n.name {
			continue
		}
		if ok, _ := required.Match(n.obj); !ok {
			continue
		}
		if _, bad := untoleratedTaint(n.obj.Spec.Taints, pod.Spec.Tolerations); bad {
			continue
		}
		out = append(out, n)
	}
	return out
}

// daemonUntargeted says, per pool, why the DaemonSet controller creates no
// pod there: a DaemonSet with no eligible node shows "0/0 scheduled" and
// no scheduler event, so the reason must come from here.
func daemonUntargeted(pod *corev1.Pod, nodes []*node) []string {
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	seen := map[string]bool{}
	var out []string
	for _, n := range nodes {
		if seen[n.pool] {
			continue
		}
		seen[n.pool] = true
		why := ""
		switch {
		case pod.Spec.NodeName != "" && pod.Spec.NodeName != n.name:
			why = "spec.nodeName names another node"
		case !nodeAffinityMatches(required, n.obj):
			why = selectorMismatch(&schedPod{pod: pod}, n.obj)
		default:
			if t, bad := untoleratedTaint(n.obj.Spec.Taints, pod.Spec.Tolerations); bad {
				why = fmt.Sprintf("taint %s is not tolerated", t.ToString())
			}
		}
		if why != "" {
			out = append(out, fmt.Sprintf("no pod on pool %s: %s", n.pool, why))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"the cluster has no nodes"}
	}
	return out
}
