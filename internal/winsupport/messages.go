package winsupport

// What Windows node components say when a pod does not fit the node. lint
// and simulate quote these so users can grep their events for them.
const (
	// KubeletOSMismatch is the kubelet's admission refusal of a pod whose
	// spec.os.name is not the node's OS (reason PodOSNotSupported;
	// k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go).
	KubeletOSMismatch = "Failed to admit pod as the OS field doesn't match node OS"
	// HostOSMismatchMessage is Windows' message for
	// ERROR_VMCOMPUTE_IMAGE_MISMATCH (HostOSMismatchCode), which
	// hcsshim::CreateComputeSystem returns when a process-isolated container
	// is built for another Windows build than the host's. The code is the
	// 0xC037xxxx form hcsshim declares its HCS errors in (microsoft/hcsshim
	// v0.15.0-rc.4 internal/hcs/errors.go) and the one the runtimes print;
	// the same error as an HRESULT is HCS_E_IMAGE_MISMATCH, 0x80370101 (both
	// in hcsshim v0.15.0-rc.4 vendor/golang.org/x/sys/windows/zerrors_windows.go).
	HostOSMismatchMessage = "The " + hostOSMismatch + "."
	// HostOSMismatch is the same message as lint, simulate and doctor quote
	// it inside their own sentences.
	HostOSMismatch = "the " + hostOSMismatch
	// HostOSMismatchCode is ERROR_VMCOMPUTE_IMAGE_MISMATCH, as Docker and
	// cri-dockerd print it after the message.
	HostOSMismatchCode = "0xc0370101"
	hostOSMismatch     = "container operating system does not match the host operating system"
	// PullAccessDenied is containerd's error for a reference whose
	// repository the registry does not have (or will not show); the kubelet
	// reports the pod ErrImagePull, then ImagePullBackOff (containerd
	// v2.1.4 core/remotes/docker/resolver.go).
	PullAccessDenied = "pull access denied, repository does not exist or may require authorization"
	// NoPlatformMatch is containerd's refusal to pull an image that has no
	// variant for the node's OS.
	NoPlatformMatch = "no match for platform in manifest"
)
