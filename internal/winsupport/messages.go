package winsupport

// What Windows node components say when a pod does not fit the node. lint
// and simulate quote these so users can grep their events for them.
const (
	// KubeletOSMismatch is the kubelet's admission refusal of a pod whose
	// spec.os.name is not the node's OS (reason PodOSNotSupported;
	// k8s.io/kubernetes pkg/kubelet/lifecycle/predicate.go).
	KubeletOSMismatch = "Failed to admit pod as the OS field doesn't match node OS"
	// HostOSMismatch is hcsshim's refusal (HCS error 0xc0370101) to start a
	// process-isolated container built for another Windows build (seed 002).
	HostOSMismatch = "the container operating system does not match the host operating system"
	// NoPlatformMatch is containerd's refusal to pull an image that has no
	// variant for the node's OS.
	NoPlatformMatch = "no match for platform in manifest"
)
