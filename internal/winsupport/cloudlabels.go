package winsupport

// Node labels managed Kubernetes platforms set on every node they
// provision, naming its OS SKU or Windows version. A nodeSelector or
// required affinity on them pins the OS (and the build) as surely as
// kubernetes.io/os and node.kubernetes.io/windows-build do.
const (
	// LabelAKSOSSKU is AKS's OS SKU label: Ubuntu, AzureLinux, ...,
	// Windows2019, Windows2022, Windows2025
	// (learn.microsoft.com/azure/aks/use-labels, "Reserved system labels").
	LabelAKSOSSKU = "kubernetes.azure.com/os-sku"
	// LabelGKEWindowsVersion is GKE's Windows Server version label, 2019 or
	// 2022 (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows,
	// "Using node selectors").
	LabelGKEWindowsVersion = "cloud.google.com/gke-windows-os-version"
)

// cloudWindowsLabels are the values the platforms set on a Windows node of
// each LTSC build.
var cloudWindowsLabels = map[string]map[string]string{
	"10.0.17763": {LabelAKSOSSKU: "Windows2019", LabelGKEWindowsVersion: "2019"},
	"10.0.20348": {LabelAKSOSSKU: "Windows2022", LabelGKEWindowsVersion: "2022"},
	"10.0.26100": {LabelAKSOSSKU: "Windows2025", LabelGKEWindowsVersion: "2025"},
}

// cloudLinuxSKUs are AKS's Linux OS SKUs (learn.microsoft.com/azure/aks/
// cluster-configuration, "OS SKU"; az aks nodepool add --os-sku).
var cloudLinuxSKUs = []string{"Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux", "AzureLinux3", "CBLMariner", "Mariner"}

// CloudOSLabelKeys are the managed platforms' OS labels.
func CloudOSLabelKeys() []string { return []string{LabelAKSOSSKU, LabelGKEWindowsVersion} }

// CloudWindowsLabels are the platforms' OS labels of a Windows node of
// build ("10.0.20348"); nil for a build they do not provision.
func (Model) CloudWindowsLabels(build string) map[string]string {
	return cloudWindowsLabels[build]
}

// CloudLinuxLabels are the platforms' OS labels of Linux nodes, one map per
// kind of node.
func (Model) CloudLinuxLabels() []map[string]string {
	out := make([]map[string]string, len(cloudLinuxSKUs))
	for i, s := range cloudLinuxSKUs {
		out[i] = map[string]string{LabelAKSOSSKU: s}
	}
	return out
}

// CloudLabelBuild is the Windows build a platform's OS label value names
// (kubernetes.azure.com/os-sku Windows2019 is 10.0.17763); ok is false
// for other keys and values.
func (Model) CloudLabelBuild(key, value string) (build string, ok bool) {
	for b, labels := range cloudWindowsLabels {
		if v, has := labels[key]; has && v == value {
			return b, true
		}
	}
	return "", false
}
