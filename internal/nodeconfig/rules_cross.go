package nodeconfig

import (
	"fmt"
	"net/netip"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// Input is the rule a file that cannot be read is reported under; the
// caller of Parse reports it (InputFinding), so its Check has no Run.
func Input() *rule.Rule { return inputRule }

var inputRule = &rule.Rule{
	ID: "node-config-input", Title: "a node configuration file could not be read", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A file given to `winkube nodeconfig validate` that cannot be read, is not one of the recognised kinds, or does not decode strictly (an unknown or misspelt field, a wrong type).",
		Why:     "The kubelet and kube-proxy decode their configuration strictly and exit on an unknown field; containerd and the CNI plugins silently ignore what they do not know. Either way the node does not run what the file says.",
		Fix:     "Fix the field at the position given; the message names the known fields or the closest one.",
		Sources: []string{"kubernetes/kubernetes v1.36.3 pkg/kubelet/kubeletconfig/util/codec/codec.go (DecodeKubeletConfiguration: strict, then lenient with a warning)", "kubernetes/kubernetes v1.36.3 cmd/kube-proxy/app/options.go (loadConfig: the same fallback)", "k8s.io/kubelet v0.36.3 config/v1beta1 and k8s.io/kube-proxy v0.36.3 config/v1alpha1 (the types decoded)"},
	},
}

// InputFinding turns a load error into a finding of node-config-input.
func InputFinding(err *LoadError) rule.Finding {
	return rule.Finding{Rule: inputRule.ID, Severity: inputRule.Severity, Message: err.Msg, File: err.File, Line: err.Line, Column: err.Column}
}

var networkNameMismatch = &rule.Rule{
	ID: "node-network-name-mismatch", Title: "kube-proxy's networkName is not the CNI's HNS network", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "Given together: a KubeProxyConfiguration whose `winkernel.networkName` is not the name of the HNS network the CNI configuration creates, or a flannel CNI configuration whose `name` is not the network flannel's net-conf.json creates (`Backend.name`, by default `flannel.<VNI>` for VXLAN and `cbr0` for host-gw).",
		Why:     "kube-proxy looks the network up by name and, not finding it, logs `Unable to find HNS Network specified, please check network name and CNI deployment` and retries forever; the win-bridge and win-overlay plugins attach pods to the network named by the CNI config. A mismatch leaves Services unprogrammed or pods without a network.",
		Fix:     "Use one name in all three places (sig-windows-tools: `flannel.4096` for VXLAN, `cbr0` for host-gw; Calico: `Calico`).",
		Sources: []string{srcProxier + " (getNetworkInfo)", srcFlannelWin, "https://github.com/flannel-io/flannel/blob/master/pkg/backend/hostgw/hostgw_windows.go (network name cbr0)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (networkName must match the CNI network)"},
	},
	Run: Run(runNetworkNames),
}

func runNetworkNames(p *Pass) {
	nets := networks(p.Files)
	var cniNets []network
	for _, n := range nets {
		if n.file.Kind == CNI && n.name != "" && n.cni != "antrea" {
			cniNets = append(cniNets, n)
		}
	}
	for _, f := range p.Of(KubeProxy) {
		name := f.KubeProxy.Winkernel.NetworkName
		if name == "" || len(cniNets) == 0 {
			continue
		}
		var have []string
		ok := false
		for _, n := range cniNets {
			have = append(have, fmt.Sprintf("%q in %s", n.name, n.file.Path))
			ok = ok || nameMatches(name, n.name)
		}
		if !ok {
			p.Report(f, "winkernel.networkName", "set networkName to the CNI config's name",
				fmt.Sprintf("networkName %q is not the HNS network the CNI creates (%s): kube-proxy will not find it", name, strings.Join(have, ", ")))
		}
	}
	for _, n := range cniNets {
		if n.cni != "flannel" {
			continue
		}
		for _, fn := range nets {
			if fn.file.Kind == FlannelNet && fn.name != "" && fn.name != n.name {
				p.Report(n.file, n.namePath, fmt.Sprintf("name the CNI network %q, or set Backend.name in net-conf.json", fn.name),
					fmt.Sprintf("CNI network name %q is not the HNS network flannel creates (%q from %s)", n.name, fn.name, fn.file.Path))
			}
		}
	}
}

// nameMatches compares kube-proxy's network name with an HNS network name.
// Calico's kube-proxy runs with KUBE_NETWORK=Calico.*, a pattern.
func nameMatches(pattern, name string) bool {
	if pattern == name {
		return true
	}
	if strings.ContainsAny(pattern, "*+?[]()|^$") {
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		return err == nil && re.MatchString(name)
	}
	return false
}

var cniConfDir = &rule.Rule{
	ID: "node-cni-conf-dir", Title: "containerd's CNI conf_dir does not hold the CNI configuration", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "With `--root DIR` (DIR stands for the node's `C:\\`): a containerd config.toml whose CNI `conf_dir` is not the folder the given CNI configuration file is in.",
		Why:     "containerd reads CNI configurations only from its conf_dir (by default `C:\\Program Files\\containerd\\cni\\conf`). A CNI config elsewhere is never loaded and every pod fails with `cni config uninitialized` / `network plugin is not ready`.",
		Fix:     "Point `conf_dir` at the folder the CNI installer writes to (sig-windows-tools: `C:\\etc\\cni\\net.d`) or move the file.",
		Sources: []string{srcContainerdWindows, "containerd/containerd v2.1.4 internal/cri/server/service.go (cni config load failed / network plugin is not ready)"},
	},
	Run: Run(runCNIConfDir),
}

func runCNIConfDir(p *Pass) {
	if p.Opts.Root == "" {
		return
	}
	for _, f := range p.Of(Containerd) {
		l := layoutOf(f)
		dir, key := lookupFold(l.cniTable(f), "conf_dir")
		confDir := str(dir)
		if confDir == "" {
			confDir, key = `C:\Program Files\containerd\cni\conf`, ""
		}
		want := nodeRel(confDir)
		for _, c := range p.Of(CNI) {
			rel, err := filepath.Rel(p.Opts.Root, filepath.Dir(c.Path))
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			if !strings.EqualFold(filepath.ToSlash(rel), want) {
				path := l.cni
				if key != "" {
					path = child(l.cni, key)
				}
				p.Reportf(f, path, "CNI conf_dir %s does not hold %s (on the node C:\\%s): containerd will not load it",
					confDir, c.Path, strings.ReplaceAll(filepath.ToSlash(rel), "/", `\`))
			}
		}
	}
}

// nodeRel turns a Windows path into a slash path relative to C:\, as
// Windows resolves it: either separator, repeated separators, . and ..
// segments, the \\?\ and \\.\ device prefixes, a drive letter in either
// case, a rooted path without a drive (on the system drive, C:). A path on
// another drive has no place under C:\ and comes back as "D:" followed by
// the rest, which no relative path equals. Callers compare the result
// case-insensitively, as NTFS does by default.
func nodeRel(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for _, dev := range []string{"//?/", "//./"} {
		p = strings.TrimPrefix(p, dev)
	}
	drive := ""
	if len(p) >= 2 && p[1] == ':' {
		drive, p = strings.ToUpper(p[:2]), p[2:]
	}
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if drive != "" && drive != "C:" {
		return drive + "/" + p
	}
	return p
}

var cidrMismatch = &rule.Rule{
	ID: "node-cidr-mismatch", Title: "node configuration CIDRs disagree with the cluster", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "With `--pod-cidr`/`--service-cidr` (or, without them, between the files): kube-proxy's `clusterCIDR` or flannel's `Network` that is not the pod CIDR, or a kubelet `clusterDNS` address outside the service CIDR.",
		Why:     "kube-proxy decides what is cluster-internal traffic from clusterCIDR, flannel hands out pod subnets from Network, and pods resolve names through clusterDNS. A Windows node configured for another cluster's ranges routes or NATs traffic wrongly and pods cannot resolve names.",
		Fix:     "Use the cluster's ranges (kube-controller-manager `--cluster-cidr`, kube-apiserver `--service-cluster-ip-range`) in every file.",
		Sources: []string{"k8s.io/kube-proxy v0.36.3 config/v1alpha1 types.go (clusterCIDR)", "k8s.io/kubelet v0.36.3 config/v1beta1 types.go (clusterDNS)", "https://github.com/flannel-io/flannel/blob/master/Documentation/configuration.md (Network)"},
	},
	Run: Run(runCIDRs),
}

func runCIDRs(p *Pass) {
	pod := p.Opts.PodCIDR
	if !pod.IsValid() {
		pod, _ = flannelNetwork(p.Files)
	}
	if pod.IsValid() {
		for _, f := range p.Of(KubeProxy) {
			for _, s := range strings.Split(f.KubeProxy.ClusterCIDR, ",") {
				c, err := netip.ParsePrefix(strings.TrimSpace(s))
				if err == nil && c.Addr().Is4() == pod.Addr().Is4() && c.Masked() != pod {
					p.Reportf(f, "clusterCIDR", "clusterCIDR %s is not the cluster's pod CIDR %s", c, pod)
				}
			}
		}
		if p.Opts.PodCIDR.IsValid() {
			for _, f := range p.Of(FlannelNet) {
				nv, nk := lookupFold(f.Tree, "Network")
				c, err := netip.ParsePrefix(str(nv))
				if err == nil && c.Masked() != pod {
					p.Reportf(f, nk, "flannel Network %s is not the cluster's pod CIDR %s", c, pod)
				}
			}
		}
	}
	if svc := p.Opts.ServiceCIDR; svc.IsValid() {
		for _, f := range p.Of(Kubelet) {
			for i, s := range f.Kubelet.ClusterDNS {
				a, err := netip.ParseAddr(s)
				if err == nil && a.Is4() == svc.Addr().Is4() && !svc.Contains(a) {
					p.Reportf(f, item("clusterDNS", i), "clusterDNS %s is outside the service CIDR %s", a, svc)
				}
			}
		}
	}
}
