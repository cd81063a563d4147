package nodeconfig

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const srcProxier = "kubernetes/kubernetes v1.36.3 pkg/proxy/winkernel/proxier.go (NewProxier)"

var proxyMode = &rule.Rule{
	ID: "kube-proxy-mode", Title: "kube-proxy on Windows runs only in kernelspace mode", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeProxyConfiguration whose `mode` is set to anything but `kernelspace`.",
		Why:     "On Windows kube-proxy programs HNS load balancers; `kernelspace` is its only mode, and validation rejects the others with `KubeProxyConfiguration.ProxyMode: Invalid value: \"iptables\": must be kernelspace or blank (blank means the most-available proxy [currently 'kernelspace'])`. kube-proxy exits and Services do not answer on the node.",
		Fix:     "Set `mode: kernelspace` in the Windows node's KubeProxyConfiguration.",
		Sources: []string{"kubernetes/kubernetes v1.36.3 pkg/proxy/apis/config/validation/validation.go (validateProxyModeWindows)"},
	},
	Run: Run(runProxyMode),
}

func runProxyMode(p *Pass) {
	for _, f := range p.Of(KubeProxy) {
		mode := string(f.KubeProxy.Mode)
		if mode == "" || mode == "kernelspace" {
			continue
		}
		err := field.Invalid(field.NewPath("KubeProxyConfiguration").Child("ProxyMode"), mode,
			"must be kernelspace or blank (blank means the most-available proxy [currently 'kernelspace'])")
		p.Report(f, "mode", "set mode: kernelspace", err.Error())
	}
}

var proxyNetworkName = &rule.Rule{
	ID: "kube-proxy-network-name", Title: "kube-proxy does not know the HNS network", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeProxyConfiguration with no `winkernel.networkName`.",
		Why:     "kube-proxy on Windows attaches its load balancers to an HNS network found by name. With neither `networkName` nor the `KUBE_NETWORK` environment variable it exits with `Environment variable KUBE_NETWORK and network-flag not initialized`. The file cannot show the service's environment, so this is a warning.",
		Fix:     "Set `winkernel.networkName` to the network the CNI creates (the CNI config's `name`; flannel: `flannel.4096` for VXLAN, `cbr0` for host-gw).",
		Sources: []string{srcProxier + " (getNetworkName)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (networkName must match the CNI network)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (KUBE_NETWORK=cbr0, --network-name=vxlan0)"},
	},
	Run: Run(runProxyNetworkName),
}

func runProxyNetworkName(p *Pass) {
	for _, f := range p.Of(KubeProxy) {
		if f.KubeProxy.Winkernel.NetworkName == "" {
			p.Report(f, "winkernel", "set winkernel.networkName to the CNI network name, or KUBE_NETWORK in kube-proxy's environment",
				"Environment variable KUBE_NETWORK and network-flag not initialized (winkernel.networkName is empty)")
		}
	}
}

var proxySourceVip = &rule.Rule{
	ID: "kube-proxy-source-vip", Title: "overlay network without winkernel.sourceVip", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeProxyConfiguration with no `winkernel.sourceVip`, given with a CNI or flannel configuration of an overlay (VXLAN) network.",
		Why:     "On an overlay network kube-proxy SNATs load-balanced traffic to the source VIP; without it kube-proxy fails with `source-vip flag not set` and Services do not work on the node.",
		Fix:     "Reserve an address from the node's pod subnet for the source VIP (sig-windows-tools does it at start) and set `winkernel.sourceVip`.",
		Sources: []string{srcProxier + " (isOverlay: source-vip flag not set)", "https://kubernetes.io/docs/concepts/services-networking/windows-networking/#network-modes (sourceVip required for overlay)", "https://kubernetes.io/docs/concepts/services-networking/windows-networking/#network-modes (--source-vip)"},
	},
	Run: Run(runProxySourceVip),
}

func runProxySourceVip(p *Pass) {
	var overlay *network
	for _, n := range networks(p.Files) {
		if n.overlay {
			overlay = &n
			break
		}
	}
	if overlay == nil {
		return
	}
	for _, f := range p.Of(KubeProxy) {
		if f.KubeProxy.Winkernel.SourceVip == "" {
			p.Report(f, "winkernel", "set winkernel.sourceVip to an address reserved from the node's pod subnet",
				fmt.Sprintf("source-vip flag not set (%s configures an overlay network)", overlay.file.Path))
		}
	}
}

// minDSRBuild is the first Windows build whose HNS supports DSR (HNS 9.3,
// Windows Server 2019 with its 2019 updates; HNS 10.2 and later).
const minDSRBuild = 17763

var proxyDSR = &rule.Rule{
	ID: "kube-proxy-dsr", Title: "Direct Server Return on a Windows build that lacks it", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeProxyConfiguration with `winkernel.enableDSR: true` for a node (`--windows-build`) older than Windows Server 2019 (10.0.17763), and, on 17763, a reminder that DSR needs the HNS shipped in its 2019 updates.",
		Why:     "kube-proxy asks HNS whether it supports DSR and exits with hcsshim's `platform does not support feature Direct Server Return (DSR)` when it does not (HNS before 9.3, or 10.0-10.1).",
		Fix:     "Set `enableDSR: false`, or run the node on Windows Server 2022 or later (or 2019 fully patched).",
		Sources: []string{srcProxier + " (hcnImpl.DsrSupported)", "microsoft/hcsshim v0.13.0 hcn/hcnsupport.go (DSRVersion: HNS 9.3-9.x and 10.2+)"},
	},
	Run: Run(runProxyDSR),
}

func runProxyDSR(p *Pass) {
	b := p.Opts.BuildNumber
	if b == 0 {
		return
	}
	for _, f := range p.Of(KubeProxy) {
		if !f.KubeProxy.Winkernel.EnableDSR {
			continue
		}
		switch {
		case b < minDSRBuild:
			p.Report(f, "winkernel.enableDSR", "set enableDSR: false",
				fmt.Sprintf("platform does not support feature Direct Server Return (DSR) (Windows build 10.0.%d predates HNS DSR support)", b))
		case b == minDSRBuild:
			p.Report(f, "winkernel.enableDSR", "install the Windows Server 2019 cumulative updates, or set enableDSR: false",
				"Windows Server 2019 (10.0.17763) supports DSR only with HNS 9.3 or later from its updates; an unpatched node fails with: platform does not support feature Direct Server Return (DSR)")
		}
	}
}

var proxyWithAntrea = &rule.Rule{
	ID: "kube-proxy-with-antrea", Title: "kube-proxy given for an Antrea node", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeProxyConfiguration given together with an Antrea CNI configuration.",
		Why:     "On Windows, Antrea's agent proxies every Service itself (AntreaProxy with proxyAll) and installs OVS flows for them; kube-proxy alongside it programs HNS load balancers for the same Services and the two fight over the traffic.",
		Fix:     "Do not run kube-proxy on Antrea Windows nodes; `winkube nodeconfig generate` writes none for `cni: antrea`.",
		Sources: []string{"https://github.com/antrea-io/antrea/blob/main/docs/windows.md (kube-proxy is not needed: AntreaProxy proxyAll handles all Service traffic on Windows)"},
	},
	Run: Run(runProxyWithAntrea),
}

func runProxyWithAntrea(p *Pass) {
	for _, n := range networks(p.Files) {
		if n.cni != "antrea" {
			continue
		}
		for _, f := range p.Of(KubeProxy) {
			p.Report(f, "kind", "remove kube-proxy from Antrea Windows nodes",
				fmt.Sprintf("kube-proxy configured on a node whose CNI is Antrea (%s): AntreaProxy already proxies all Service traffic", n.file.Path))
		}
		return
	}
}

// hasPrefixFold is strings.HasPrefix ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
