package simulate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Kubelet admission reasons and messages (pkg/kubelet/lifecycle).
const (
	podOSSelectorMismatch = "PodOSSelectorNodeLabelDoesNotMatch: Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
	podOSNotSupported     = "PodOSNotSupported: " + winsupport.KubeletOSMismatch
	osMismatch            = winsupport.HostOSMismatch
	noPlatform            = winsupport.NoPlatformMatch + ": not found"
)

// startFailure is what the kubelet on n does with the pod once bound, ""
// when its containers start: its own admission first (the pod's OS label
// and spec.os against the node), then pulling and creating each container.
func startFailure(pod *corev1.Pod, n *corev1.Node, hyperV bool, m winsupport.Model) string {
	nodeOS := cluster.NodeOS(n)
	if v, ok := pod.Labels[cluster.LabelOS]; ok && v != nodeOS {
		return podOSSelectorMismatch
	}
	if pod.Spec.OS != nil && string(pod.Spec.OS.Name) != nodeOS {
		return podOSNotSupported
	}
	hostProcess := target.HostProcess(&pod.Spec)
	var out string
	winsupport.VisitContainers(&pod.Spec, field.NewPath("spec"), func(c *corev1.Container, p *field.Path) {
		if out == "" {
			out = imageFailure(c, n, nodeOS, hyperV, hostProcess, m)
		}
	})
	return out
}

// imageFailure checks one container's image against the node.
func imageFailure(c *corev1.Container, n *corev1.Node, nodeOS string, hyperV, hostProcess bool, m winsupport.Model) string {
	img := m.ParseImage(c.Image)
	switch {
	case nodeOS == "windows" && img.Platform == winsupport.PlatformLinux:
		return fmt.Sprintf("ErrImagePull: container %q: failed to pull image %q: %s (the image is published for Linux only; the node runs Windows)", c.Name, c.Image, noPlatform)
	case nodeOS == "linux" && img.Platform == winsupport.PlatformWindows:
		return fmt.Sprintf("ErrImagePull: container %q: failed to pull image %q: %s (the image is a Windows image; the node runs Linux)", c.Name, c.Image, noPlatform)
	case nodeOS != "windows" || img.Build == nil || hostProcess:
		// HostProcess containers run on the host and need no build match.
		return ""
	}
	hostBuild, ok := m.BuildByNumber(n.Labels[cluster.LabelWindowsBuild])
	if !ok || hostBuild.Build == img.Build.Build {
		return ""
	}
	if hyperV && buildNumber(img.Build.Build) < buildNumber(hostBuild.Build) {
		return "" // Hyper-V isolation runs an older image build on a newer host
	}
	isolation := "process isolation"
	if hyperV {
		isolation = "Hyper-V isolation, which cannot run a newer build than the host's"
	}
	return fmt.Sprintf("CreateContainerError: container %q: %s (image %s is built for %s, %s; the node runs %s, %s, with %s)",
		c.Name, osMismatch, c.Image, img.Build.Name, img.Build.Build, hostBuild.Name, hostBuild.Build, isolation)
}

// buildNumber is the third part of 10.0.NNNNN.
func buildNumber(b string) int {
	n := 0
	fmt.Sscanf(b, "10.0.%d", &n)
	return n
}

// kubeletAdmitNamed is the kubelet's admission of a pod that names its
// node in spec.nodeName and so never met the scheduler: the OS checks,
// then the scheduler's own predicates for resources, node affinity and
// host ports, then NoExecute taints.
func kubeletAdmitNamed(sp *schedPod, n *node, m winsupport.Model) string {
	pod := sp.pod
	if v, ok := pod.Labels[cluster.LabelOS]; ok && v != n.os {
		return podOSSelectorMismatch
	}
	if pod.Spec.OS != nil && string(pod.Spec.OS.Name) != n.os {
		return podOSNotSupported
	}
	if msg := outOf(sp, n); msg != "" {
		return msg
	}
	if ok, _ := sp.required.Match(n.obj); !ok {
		return "NodeAffinity: Predicate NodeAffinity failed: " + reasonNodeAffinity
	}
	if len(sp.ports) > 0 && !portsFit(sp.ports, n.ports) {
		return "NodePorts: Predicate NodePorts failed: " + reasonPorts
	}
	for i := range n.obj.Spec.Taints {
		t := &n.obj.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectNoExecute && !tolerates(sp.tolerations, t) {
			return "TaintToleration: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
		}
	}
	return ""
}

// outOf is the kubelet's resource admission: the first insufficient
// resource, as OutOf<resource> with its numbers.
func outOf(sp *schedPod, n *node) string {
	f := func(name string, want, have, inUse int64) string {
		return fmt.Sprintf("OutOf%s: Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", name, name, want, inUse, have)
	}
	if len(n.pods)+1 > n.allowed {
		return f("pods", 1, int64(n.allowed), int64(len(n.pods)))
	}
	r := sp.req
	switch {
	case r.MilliCPU > 0 && r.MilliCPU > n.alloc.MilliCPU-n.used.MilliCPU:
		return f("cpu", r.MilliCPU, n.alloc.MilliCPU, n.used.MilliCPU)
	case r.Memory > 0 && r.Memory > n.alloc.Memory-n.used.Memory:
		return f("memory", r.Memory, n.alloc.Memory, n.used.Memory)
	case r.Ephemeral > 0 && r.Ephemeral > n.alloc.Ephemeral-n.used.Ephemeral:
		return f("ephemeral-storage", r.Ephemeral, n.alloc.Ephemeral, n.used.Ephemeral)
	}
	for _, x := range r.Scalar {
		if x.Value > n.alloc.Scalar.get(x.Name)-n.used.Scalar.get(x.Name) {
			return f(string(x.Name), x.Value, n.alloc.Scalar.get(x.Name), n.used.Scalar.get(x.Name))
		}
	}
	return ""
}
