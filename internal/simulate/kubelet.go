package simulate

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
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
// images, when set, gives the registry's platforms of each image.
func startFailure(pod *corev1.Pod, n *corev1.Node, hyperV bool, m winsupport.Model, images rule.ImageLookup) string {
	nodeOS := cluster.NodeOS(n)
	if v, ok := pod.Labels[cluster.LabelOS]; ok && v != nodeOS {
		return podOSSelectorMismatch
	}
	if pod.Spec.OS != nil && string(pod.Spec.OS.Name) != nodeOS {
		return podOSNotSupported
	}
	k := kubeletNode{n: n, os: nodeOS, hyperV: hyperV, hostProcess: target.HostProcess(&pod.Spec)}
	if msg := k.sandboxFailure(images); msg != "" && !k.hostProcess {
		return msg
	}
	var out string
	winsupport.VisitContainers(&pod.Spec, field.NewPath("spec"), func(c *corev1.Container, p *field.Path) {
		if out != "" {
			return
		}
		var msg string
		if r, ok := resolveImage(images, c.Image); ok {
			msg = k.pullFailure(c, r)
		} else {
			msg = k.imageFailure(c, m)
		}
		// The kubelet pulls, then builds the container's config (where
		// runAsNonRoot is verified), then asks the runtime to create it.
		if strings.HasPrefix(msg, errImagePull) {
			out = msg
			return
		}
		if cfg := k.configFailure(pod, c, m, images); cfg != "" {
			out = cfg
			return
		}
		out = msg
	})
	return out
}

const errImagePull = "ErrImagePull:"

// configFailure is the Windows kubelet's refusal to build the container's
// config: runAsNonRoot with ContainerAdministrator as runAsUserName or as
// the image's user (kuberuntime verifyRunAsNonRoot). startContainer
// reports the error as the waiting reason CreateContainerConfigError with
// the error's text as message.
func (k kubeletNode) configFailure(pod *corev1.Pod, c *corev1.Container, m winsupport.Model, images rule.ImageLookup) string {
	if k.os != "windows" {
		return ""
	}
	v, user := winsupport.RunAsNonRoot(&pod.Spec, c, rule.ImageUser(images, m, c.Image))
	format := ""
	switch v {
	case winsupport.NonRootRefusedName:
		format = winsupport.KubeletRunAsUserNameRoot
	case winsupport.NonRootRefusedImage:
		format = winsupport.KubeletImageUserRoot
	default:
		return ""
	}
	return "CreateContainerConfigError: " + fmt.Sprintf(format, user, podDesc(pod, pod.Name), c.Name)
}

// podDesc is the kubelet's format.Pod: name_namespace(uid).
func podDesc(pod *corev1.Pod, name string) string {
	return fmt.Sprintf("%s_%s(%s)", name, pod.Namespace, pod.UID)
}

// podNamed puts the generated pod's name in a message about the
// workload's template pod: start failures are worked out once per
// workload and kind of node, and the kubelet names the pod it refuses.
func podNamed(msg string, template *corev1.Pod, name string) string {
	if msg == "" || name == "" || name == template.Name {
		return msg
	}
	return strings.Replace(msg, fmt.Sprintf("(pod: %q,", podDesc(template, template.Name)), fmt.Sprintf("(pod: %q,", podDesc(template, name)), 1)
}

// kubeletNode is what the kubelet's image checks read of the node and pod.
type kubeletNode struct {
	n                   *corev1.Node
	os                  string
	hyperV, hostProcess bool
}

func resolveImage(images rule.ImageLookup, ref string) (*winsupport.ResolvedImage, bool) {
	if images == nil || ref == "" {
		return nil, false
	}
	r, err := images.Lookup(ref)
	return r, err == nil && r != nil
}

// pullFailure is containerd's platform match of the registry's entries
// against the node (containerd/platforms): no entry, no pull.
func (k kubeletNode) pullFailure(c *corev1.Container, r *winsupport.ResolvedImage) string {
	if msg := k.noMatch(c.Image, r); msg != "" {
		return fmt.Sprintf(errImagePull+" container %q: %s", c.Name, msg)
	}
	return ""
}

// noMatch is the pull error of ref on the node, "" when an entry fits.
func (k kubeletNode) noMatch(ref string, r *winsupport.ResolvedImage) string {
	host := winsupport.Host{OS: k.os, Architecture: k.n.Labels[corev1.LabelArchStable], Build: k.n.Labels[cluster.LabelWindowsBuild]}
	iso := winsupport.ProcessIsolation
	if k.hyperV {
		iso = winsupport.HyperVIsolation
	}
	if k.hostProcess {
		host.Build = "" // HostProcess containers run on the host: any build
	}
	if _, ok := host.Pick(r.Platforms, iso); ok {
		return ""
	}
	node := k.os + "/" + host.Architecture
	if host.Architecture == "" {
		node = k.os + "/amd64"
	}
	if host.Build != "" {
		node += " " + host.Build + " with " + iso.String() + " isolation"
	}
	return fmt.Sprintf("failed to pull image %q: %s (%s; the node runs %s)", ref, noPlatform, r.Describe(), node)
}

// imageFailure checks one container's image, as its tag describes it,
// against the node.
func (k kubeletNode) imageFailure(c *corev1.Container, m winsupport.Model) string {
	img := m.ParseImage(c.Image)
	switch {
	case k.os == "windows" && img.Platform == winsupport.PlatformLinux:
		return fmt.Sprintf("ErrImagePull: container %q: failed to pull image %q: %s (the image is published for Linux only; the node runs Windows)", c.Name, c.Image, noPlatform)
	case k.os == "linux" && img.Platform == winsupport.PlatformWindows:
		return fmt.Sprintf("ErrImagePull: container %q: failed to pull image %q: %s (the image is a Windows image; the node runs Linux)", c.Name, c.Image, noPlatform)
	case k.os != "windows" || img.Build == nil || k.hostProcess:
		// HostProcess containers run on the host and need no build match.
		return ""
	}
	hostBuild, ok := m.BuildByNumber(k.n.Labels[cluster.LabelWindowsBuild])
	if !ok || winsupport.BuildRuns(hostBuild.Build, img.Build.Build, winsupport.ProcessIsolation) {
		// From Windows Server 2022 on a host runs the previous LTSC's
		// images too (containerd checkWindowsHostAndContainerCompat).
		return ""
	}
	if k.hyperV && winsupport.BuildRuns(hostBuild.Build, img.Build.Build, winsupport.HyperVIsolation) {
		return "" // Hyper-V isolation runs an older image build on a newer host
	}
	isolation := "process isolation"
	if k.hyperV {
		isolation = "Hyper-V isolation, which cannot run a newer build than the host's"
	}
	return fmt.Sprintf("CreateContainerError: container %q: %s (image %s is built for %s, %s; the node runs %s, %s, with %s)",
		c.Name, osMismatch, c.Image, img.Build.Name, img.Build.Build, hostBuild.Name, hostBuild.Build, isolation)
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

// sandboxFailure is the runtime's refusal to start the pod sandbox: the
// node's sandbox (pause) image has no platform entry the node runs. It is
// checked only with registry data; an unresolved sandbox image is a note.
func (k kubeletNode) sandboxFailure(images rule.ImageLookup) string {
	if images == nil {
		return ""
	}
	ref := k.n.Annotations[cluster.AnnotationSandboxImage]
	if ref == "" {
		ref = cluster.DefaultSandboxImage
	}
	r, ok := resolveImage(images, ref)
	if !ok {
		return ""
	}
	if msg := k.noMatch(ref, r); msg != "" {
		return fmt.Sprintf("FailedCreatePodSandBox: failed to get sandbox image %q: %s", ref, msg)
	}
	return ""
}
