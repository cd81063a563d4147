package nodeconfig

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

const (
	srcHNSNetconf = "containernetworking/plugins v1.6.2 pkg/hns/netconf.go (apiVersion 1 policies: ExceptionList, ROUTE; apiVersion 2: Settings.Exceptions, SDNRoute)"
	srcFlannelWin = "https://github.com/flannel-io/flannel/blob/master/pkg/backend/vxlan/vxlan_windows.go (defaultVNI 4096, vxlanPort 4789, name flannel.<VNI>)"
)

// policy is one HNS endpoint policy of a CNI plugin.
type policy struct {
	path  string // of the policy's Value
	typ   string
	value map[string]any
}

// hnsPolicies returns the plugin's HNS API version and its EndpointPolicy
// values, from policies (win-bridge, win-overlay, flannel's delegate,
// Calico) or AdditionalArgs (sdnbridge, sdnoverlay, Azure CNI). The
// version is 1 or 2 for the containernetworking plugins (apiVersion,
// default 1), 2 for microsoft/windows-container-networking's sdnbridge and
// sdnoverlay (HCN only), and 0 (unknown) for other plugins without an
// apiVersion, whose policy schema winkube does not assume.
func hnsPolicies(p plugin) (int, []policy) {
	base, hns := p.hnsPath()
	version := 0
	switch strings.ToLower(str(hns["type"])) {
	case "win-bridge", "win-overlay":
		version = 1
	case "sdnbridge", "sdnoverlay":
		version = 2
	}
	if v, _ := lookupFold(hns, "apiVersion"); v != nil && version != 2 {
		if n, ok := num(v); ok {
			version = int(n)
		}
	}
	var out []policy
	for _, key := range []string{"policies", "AdditionalArgs"} {
		list, k := lookupFold(hns, key)
		items, _ := list.([]any)
		for i, it := range items {
			m, _ := it.(map[string]any)
			name, _ := lookupFold(m, "Name")
			val, vk := lookupFold(m, "Value")
			vm, ok := val.(map[string]any)
			if !ok || !strings.EqualFold(str(name), "EndpointPolicy") {
				continue
			}
			t, _ := lookupFold(vm, "Type")
			out = append(out, policy{path: child(item(child(base, k), i), vk), typ: str(t), value: vm})
		}
	}
	return version, out
}

var cniPolicyVersion = &rule.Rule{
	ID: "cni-hns-policy-version", Title: "HNS policy keys of the other API version are ignored", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A CNI configuration whose HNS endpoint policies use v1 keys (`ExceptionList`, `ROUTE`, `DestinationPrefix` at the top of the value) with `apiVersion: 2`, or v2 keys (`Settings`, `SDNRoute`) without it. sdnbridge and sdnoverlay (microsoft/windows-container-networking) always use v2; other plugins are checked only when they say `apiVersion`.",
		Why:     "The Windows CNI plugins decode the policies for the API version the config declares and drop what they do not recognise without an error: the OutBoundNAT exceptions or the service route never reach HNS, so pods cannot reach Services or each other across nodes while everything looks configured.",
		Fix:     "Write every policy in the config's version: v1 `{\"Type\": \"OutBoundNAT\", \"ExceptionList\": [...]}`, `{\"Type\": \"ROUTE\", \"DestinationPrefix\": ..., \"NeedEncap\": true}`; v2 `{\"Type\": \"OutBoundNAT\", \"Settings\": {\"Exceptions\": [...]}}`, `{\"Type\": \"SDNRoute\", \"Settings\": {...}}`.",
		Sources: []string{srcHNSNetconf, "microsoft/hcsshim v0.13.0 hcn/hcnpolicy.go (v2 policy types: OutBoundNAT, SDNRoute with Settings)"},
	},
	Run: Run(runPolicyVersion),
}

func runPolicyVersion(p *Pass) {
	for _, f := range p.Of(CNI) {
		for _, pl := range plugins(f) {
			version, pols := hnsPolicies(pl)
			if version == 0 {
				continue
			}
			for _, pol := range pols {
				var bad []string
				for k := range pol.value {
					switch {
					case version == 2 && (strings.EqualFold(k, "ExceptionList") || strings.EqualFold(k, "DestinationPrefix") || strings.EqualFold(k, "NeedEncap")):
						bad = append(bad, k)
					case version != 2 && strings.EqualFold(k, "Settings"):
						bad = append(bad, k)
					}
				}
				if version == 2 && strings.EqualFold(pol.typ, "ROUTE") {
					bad = append(bad, "Type ROUTE")
				}
				if version != 2 && strings.EqualFold(pol.typ, "SDNRoute") {
					bad = append(bad, "Type SDNRoute")
				}
				if len(bad) == 0 {
					continue
				}
				other := map[bool]string{true: "v1", false: "v2"}[version == 2]
				p.Reportf(f, pol.path, "%s policy uses HNS %s keys (%s) in an apiVersion %d config, which the plugin ignores",
					pol.typ, other, strings.Join(sortedCopy(bad), ", "), version)
			}
		}
	}
}

var cniOutboundNAT = &rule.Rule{
	ID: "cni-outbound-nat-exceptions", Title: "OutBoundNAT exceptions miss the cluster or service CIDR", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "An OutBoundNAT policy whose exception list does not cover the pod CIDR and the service CIDR (from `--pod-cidr`/`--service-cidr`, or flannel's net-conf.json `Network` when given).",
		Why:     "Traffic to addresses outside the exceptions is SNATed to the node's IP. Pod-to-pod traffic that is NATed breaks network policy and return paths; service traffic that is NATed before kube-proxy's load balancer never reaches the endpoints.",
		Fix:     "List the cluster's pod CIDR and service CIDR (and the node subnet for l2bridge) in the OutBoundNAT exceptions.",
		Sources: []string{srcHNSNetconf, "https://github.com/kubernetes-sigs/sig-windows-tools/tree/master/hostprocess/flannel (flannel's CNI config for Windows) (ExceptionList: cluster CIDR, service CIDR)", "https://kubernetes.io/docs/concepts/services-networking/windows-networking/#network-modes (OutBoundNAT ExceptionList)", "https://github.com/projectcalico/calico/blob/master/node/windows-packaging/CalicoWindows/cni.conf.template (ExceptionList holds only the service CIDR)"},
	},
	Run: Run(runOutboundNAT),
}

func runOutboundNAT(p *Pass) {
	want := map[string]netip.Prefix{}
	if p.Opts.PodCIDR.IsValid() {
		want["pod CIDR"] = p.Opts.PodCIDR
	} else if c, ok := flannelNetwork(p.Files); ok {
		want["pod CIDR"] = c
	}
	if p.Opts.ServiceCIDR.IsValid() {
		want["service CIDR"] = p.Opts.ServiceCIDR
	}
	if len(want) == 0 {
		return
	}
	for _, f := range p.Of(CNI) {
		for _, pl := range plugins(f) {
			version, pols := hnsPolicies(pl)
			for _, pol := range pols {
				if !strings.EqualFold(pol.typ, "OutBoundNAT") {
					continue
				}
				var list any
				if version != 1 {
					s, _ := lookupFold(pol.value, "Settings")
					sm, _ := s.(map[string]any)
					list, _ = lookupFold(sm, "Exceptions")
				}
				if version != 2 && list == nil {
					list, _ = lookupFold(pol.value, "ExceptionList")
				}
				items, _ := list.([]any)
				whats := []string{"pod CIDR", "service CIDR"}
				if strings.EqualFold(pl.typ(), "calico") {
					// Calico decides pod-traffic NAT from its IP pools
					// (natOutgoing); its own template excepts only services.
					whats = whats[1:]
				}
				for _, what := range whats {
					cidr, ok := want[what]
					if ok && !covered(cidr, items) {
						p.Report(f, pol.path, "add "+cidr.String()+" to the exceptions",
							fmt.Sprintf("OutBoundNAT exceptions do not cover the %s %s: that traffic is NATed to the node's address", what, cidr))
					}
				}
			}
		}
	}
}

// covered reports whether one of the prefixes in items contains cidr.
func covered(cidr netip.Prefix, items []any) bool {
	for _, it := range items {
		pf, err := netip.ParsePrefix(str(it))
		if err == nil && pf.Bits() <= cidr.Bits() && pf.Contains(cidr.Addr()) {
			return true
		}
	}
	return false
}

func flannelNetwork(files []*File) (netip.Prefix, bool) {
	for _, f := range files {
		if f.Kind == FlannelNet {
			if c, err := netip.ParsePrefix(str(fold(f.Tree, "Network"))); err == nil {
				return c.Masked(), true
			}
		}
	}
	return netip.Prefix{}, false
}

var flannelVXLAN = &rule.Rule{
	ID: "flannel-vxlan-windows", Title: "flannel VXLAN settings the Windows node cannot use", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A flannel net-conf.json with a VXLAN backend whose `VNI` is unset or below 4096, or whose `Port` is unset or not 4789.",
		Why:     "Windows flannel accepts only VNI 4096 or more and UDP port 4789 (`invalid VXLAN backend config. VNI [1] must be greater than or equal to 4096 on Windows`). Left unset, Linux flannel uses VNI 1 and port 8472 while Windows uses 4096 and 4789, so the two sides never reach each other: pods on Windows cannot talk to pods on Linux.",
		Fix:     "Set `\"Backend\": {\"Type\": \"vxlan\", \"VNI\": 4096, \"Port\": 4789}` in the net-conf.json both sides read (the kube-flannel-cfg ConfigMap).",
		Sources: []string{srcFlannelWin, "https://github.com/flannel-io/flannel/blob/master/pkg/backend/vxlan/vxlan.go (Linux defaults VNI 1, port 8472)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (restricted to VNI 4096 and UDP port 4789)"},
	},
	Run: Run(runFlannelVXLAN),
}

func runFlannelVXLAN(p *Pass) {
	for _, f := range p.Of(FlannelNet) {
		bv, bk := lookupFold(f.Tree, "Backend")
		b, _ := bv.(map[string]any)
		if !strings.EqualFold(str(fold(b, "Type")), "vxlan") {
			continue
		}
		vv, vk := lookupFold(b, "VNI")
		pv, pk := lookupFold(b, "Port")
		if v, ok := num(vv); !ok {
			p.Warn(f, bk, `set "VNI": 4096 here and in the Linux nodes' kube-flannel-cfg`, "VNI is unset: Windows flannel uses 4096 but Linux flannel defaults to 1, so Linux nodes reading this configuration use another VXLAN network")
		} else if v < 4096 {
			p.Report(f, child(bk, vk), `set "VNI": 4096`, fmt.Sprintf("invalid VXLAN backend config. VNI [%v] must be greater than or equal to %v on Windows", v, 4096))
		}
		if v, ok := num(pv); !ok {
			p.Warn(f, bk, `set "Port": 4789 here and in the Linux nodes' kube-flannel-cfg`, "Port is unset: Windows flannel uses 4789 but Linux flannel defaults to 8472, so VXLAN packets between them are dropped")
		} else if v != 4789 {
			p.Report(f, child(bk, pk), `set "Port": 4789`, fmt.Sprintf("invalid VXLAN backend config. Port [%v] is not supported on Windows. Omit the setting to default to port %v", v, 4789))
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
