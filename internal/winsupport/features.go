package winsupport

// Feature is a Windows-relevant capability whose availability changed
// across Kubernetes releases.
type Feature struct {
	ID      string
	Title   string
	Enabled Range // releases where it works on Windows with default feature gates
	Note    string
	Source  string
}

// Feature IDs.
const (
	FeaturePodOS       = "pod-os"
	FeatureHostProcess = "hostprocess"
	FeatureHostNetwork = "windows-host-network"
	FeatureSidecars    = "sidecar-containers"
	FeatureSubPath     = "subpath-mounts"
	FeatureHyperV      = "hyperv-isolation"
)

var features = []Feature{
	{ID: FeaturePodOS, Title: "spec.os.name", Enabled: Range{From: Version{24}}, Note: "IdentifyPodOS: alpha 1.23, beta (on) 1.24, GA 1.25; the API server validates Windows pods against it", Source: "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork; Kubernetes feature gates"},
	{ID: FeatureHostProcess, Title: "HostProcess containers", Enabled: Range{From: Version{23}}, Note: "alpha 1.22, beta (on) 1.23, GA 1.26", Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (GA from 1.26)"},
	{ID: FeatureHostNetwork, Title: "host networking for non-HostProcess Windows pods", Enabled: Range{From: Version{26}, Until: Version{32}}, Note: "alpha behind the WindowsHostNetwork gate (off by default) in 1.26-1.32, then removed", Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support: v1.26 to v1.32 included alpha support; v1.35 has no WindowsHostNetwork gate"},
	{ID: FeatureSidecars, Title: "sidecar (restartable init) containers", Enabled: Range{From: Version{29}}, Note: "SidecarContainers: alpha 1.28, beta (on) 1.29, GA 1.33", Source: "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (sidecars supported 1.28+); Kubernetes feature gates"},
	{ID: FeatureSubPath, Title: "subPath volume mounts", Enabled: Range{From: Version{24}}, Note: "not possible with Docker EE (dockershim, removed in 1.24); works with containerd", Source: "https://kubernetes.io/docs/concepts/storage/windows-storage/ (subpath mounts unsupported with Docker); https://kubernetes.io/docs/concepts/storage/windows-storage/ (subPath with containerd)"},
	{ID: FeatureHyperV, Title: "Hyper-V isolated containers", Enabled: Range{From: Version{99}}, Note: "containerd implements runhcs-wcow-hypervisor, but upstream Kubernetes does not support Hyper-V isolation", Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container: Kubernetes does not support Windows containers with Hyper-V isolation"},
}

// Features returns the feature table.
func (Model) Features() []Feature { return append([]Feature(nil), features...) }

// Supports reports whether the feature works on Windows in this release
// with default feature gates.
func (m Model) Supports(id string) bool {
	for _, f := range features {
		if f.ID == id {
			return f.Enabled.Contains(m.V)
		}
	}
	return false
}

// ClientIPAffinityFromBuild is the first Windows build (the third part of
// 10.0.NNNNN) whose kube-proxy honours sessionAffinity: ClientIP: Windows
// Server 2022 (https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations; https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support Insider build 19551 was never an LTSC
// release).
func (Model) ClientIPAffinityFromBuild() int { return 20348 }

// HostNetworkState explains host networking for a non-HostProcess Windows
// pod in this release.
func (m Model) HostNetworkState() string {
	switch {
	case m.V.Less(Version{26}):
		return "host networking is not available for Windows pods"
	case m.Supports(FeatureHostNetwork):
		return "host networking for Windows pods is alpha in " + m.V.String() + " and needs the WindowsHostNetwork feature gate, off by default"
	default:
		return "host networking for Windows pods was removed after 1.32 (it was alpha in 1.26-1.32)"
	}
}
