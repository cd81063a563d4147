package winsupport

// The managed platforms' OS labels on nodes. winkube does not yet read a
// selector on them as an OS or build pin (the exported admission policies
// would have to read them the same way); os-label-typo names them as the
// keys a mistyped selector likely meant.
const (
	// LabelAKSOSSKU is AKS's OS SKU label: Ubuntu, AzureLinux, ...,
	// Windows2019, Windows2022, Windows2025
	// (https://learn.microsoft.com/en-us/azure/aks/use-windows-server-2025).
	LabelAKSOSSKU = "kubernetes.azure.com/os-sku"
	// LabelGKEWindowsVersion is GKE's Windows Server version label, 2019 or
	// 2022 (https://cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows).
	LabelGKEWindowsVersion = "cloud.google.com/gke-windows-os-version"
)
