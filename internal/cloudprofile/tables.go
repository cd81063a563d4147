package cloudprofile

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Windows Server builds, as node.kubernetes.io/windows-build reports them.
const (
	build2019 = "10.0.17763"
	build2022 = "10.0.20348"
	build2025 = "10.0.26100"
)

// aksOSSKU maps az aks --os-sku (and ARM/Terraform osSKU, os_sku) to the
// Windows build: learn.microsoft.com/azure/aks/windows-faq and the az aks
// nodepool add reference (--os-sku values Windows2019, Windows2022,
// Windows2025).
var aksOSSKU = map[string]string{"windows2019": build2019, "windows2022": build2022, "windows2025": build2025}

// aksDefaultWindowsBuild: without --os-sku, AKS creates Windows Server 2022
// node pools from Kubernetes 1.25 (learn.microsoft.com/azure/aks/windows-faq).
const aksDefaultWindowsBuild = build2022

// eksAMI maps eksctl amiFamily and EKS --ami-type values to the Windows
// build (eksctl.io/usage/windows-worker-nodes/,
// docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html amiType).
func eksAMI(s string) (build string, windows bool) {
	u := strings.ToUpper(s)
	if !strings.Contains(u, "WINDOWS") {
		return "", false
	}
	switch {
	case strings.Contains(u, "2019"):
		return build2019, true
	case strings.Contains(u, "2022"):
		return build2022, true
	case strings.Contains(u, "2025"):
		return build2025, true
	}
	return "", true
}

// gkeWindowsOSVersion maps gcloud --windows-os-version (and Terraform's
// windows_node_config.osversion) to the build
// (cloud.google.com/sdk/gcloud/reference/container/node-pools/create).
var gkeWindowsOSVersion = map[string]string{"ltsc2019": build2019, "ltsc2022": build2022, "os_version_ltsc2019": build2019, "os_version_ltsc2022": build2022}

// gkeWindowsTaint is the taint GKE puts on every Windows Server node
// (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows;
// the gke built-in profile uses the same).
var gkeWindowsTaint = corev1.Taint{Key: "node.kubernetes.io/os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}

// size is a VM's capacity.
type size struct{ cpu, mem string }

// vmSizes are the capacities of common node VM sizes: Azure
// (learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dsv3-series,
// dsv5-series), EC2 (aws.amazon.com/ec2/instance-types/m5/, m6i/) and
// Compute Engine (cloud.google.com/compute/docs/general-purpose-machines).
// A size not listed keeps the profile's default capacity, said in a note.
var vmSizes = map[string]size{
	"standard_d2s_v3": {"2", "8Gi"}, "standard_d4s_v3": {"4", "16Gi"}, "standard_d8s_v3": {"8", "32Gi"},
	"standard_d2s_v5": {"2", "8Gi"}, "standard_d4s_v5": {"4", "16Gi"}, "standard_d8s_v5": {"8", "32Gi"},
	"standard_ds2_v2": {"2", "7Gi"},
	"m5.large":        {"2", "8Gi"}, "m5.xlarge": {"4", "16Gi"}, "m5.2xlarge": {"8", "32Gi"}, "m5.4xlarge": {"16", "64Gi"},
	"m6i.large": {"2", "8Gi"}, "m6i.xlarge": {"4", "16Gi"}, "t3.large": {"2", "8Gi"}, "t3.xlarge": {"4", "16Gi"},
	"n1-standard-2": {"2", "7680Mi"}, "n1-standard-4": {"4", "15Gi"}, "n1-standard-8": {"8", "30Gi"},
	"e2-medium": {"2", "4Gi"}, "e2-standard-4": {"4", "16Gi"}, "n2-standard-4": {"4", "16Gi"},
}

// sized sets the pool's capacity from its VM size, or says it is unknown.
func (r *reader) sized(p *pool, vm string) {
	p.vm = vm
	s, ok := vmSizes[strings.ToLower(vm)]
	if !ok {
		if vm != "" {
			r.notef(p.line, "pool %s: VM size %s is not in winkube's table; its capacity is assumed 4 CPU, 16Gi", p.Name, vm)
		}
		return
	}
	p.CPU, p.Memory = resource.MustParse(s.cpu), resource.MustParse(s.mem)
}
