package simulate

import (
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
