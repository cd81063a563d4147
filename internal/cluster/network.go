package cluster

import "strings"

// DefaultClusterDomain is the kubelet's and kubeadm's default clusterDomain
// (k8s.io/kubernetes v1.36.3 cmd/kubeadm/app/apis/kubeadm/v1beta4
// DefaultServiceDNSDomain).
const DefaultClusterDomain = "cluster.local"

// Domain is the cluster's DNS domain.
func (c *Cluster) Domain() string {
	if c.ClusterDomain != "" {
		return strings.TrimSuffix(c.ClusterDomain, ".")
	}
	return DefaultClusterDomain
}

// CNIFacts is what is known of a CNI plugin on Windows nodes.
type CNIFacts struct {
	Name string
	// NetworkPolicy: whether it enforces NetworkPolicy for Windows pods;
	// nil when it depends on more than the plugin (an add-on, a mode).
	NetworkPolicy *bool
	// DropsOutboundICMP: documented that the Windows data plane (VFP)
	// does not translate ICMP for it, so a ping leaving the pod network
	// gets no answer. False when not documented either way.
	DropsOutboundICMP bool
	Source            string
}

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

const (
	srcWinNet = "kubernetes.io/docs/concepts/services-networking/windows-networking (Network modes; Limitations: outbound ICMP via win-overlay, win-bridge or Azure-CNI)"
)

// knownCNIs are the Windows CNI plugins whose NetworkPolicy and ICMP
// behaviour is documented. Flannel delegates to win-bridge (host-gw) or
// win-overlay (vxlan) and so inherits their data plane.
var knownCNIs = []CNIFacts{
	{Name: "win-bridge", NetworkPolicy: no, DropsOutboundICMP: true, Source: srcWinNet + "; the reference plugins program no NetworkPolicy (https://github.com/microsoft/windows-container-networking/tree/master/example sdnbridge)"},
	{Name: "win-overlay", NetworkPolicy: no, DropsOutboundICMP: true, Source: srcWinNet + "; the reference plugins program no NetworkPolicy (microsoft/windows-container-networking sdnoverlay)"},
	{Name: "flannel", NetworkPolicy: no, DropsOutboundICMP: true, Source: srcWinNet + " (flannel delegates to win-bridge or win-overlay); flannel implements no NetworkPolicy and leaves it to other projects such as Calico (github.com/flannel-io/flannel README)"},
	{Name: "azure", DropsOutboundICMP: true, Source: srcWinNet + "; on Windows, Azure CNI enforces NetworkPolicy only with Azure Network Policy Manager (learn.microsoft.com/azure/aks/use-network-policies)"},
	{Name: "calico", NetworkPolicy: yes, Source: "docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico (Calico for Windows enforces Kubernetes network policy)"},
	{Name: "antrea", NetworkPolicy: yes, Source: "antrea.io/docs/main/docs/windows (NetworkPolicy is supported on Windows nodes)"},
}

// KnownCNIs lists the CNI names a pool's cni field recognises.
func KnownCNIs() []CNIFacts { return append([]CNIFacts(nil), knownCNIs...) }

// CNIOf returns what is known of a CNI by name (azure-vnet is azure,
// sdnbridge win-bridge, sdnoverlay win-overlay).
func CNIOf(name string) (CNIFacts, bool) {
	switch n := strings.ToLower(name); n {
	case "azure-vnet", "azure-cni":
		name = "azure"
	case "sdnbridge", "l2bridge":
		name = "win-bridge"
	case "sdnoverlay", "overlay":
		name = "win-overlay"
	default:
		name = n
	}
	for _, c := range knownCNIs {
		if c.Name == name {
			return c, true
		}
	}
	return CNIFacts{}, false
}

// EnforcesNetworkPolicy says whether the pool enforces NetworkPolicy: its
// networkPolicy field when set, else what its CNI is known to do. ok is
// false when it is unknown.
func (p Pool) EnforcesNetworkPolicy() (enforces, ok bool) {
	if p.NetworkPolicy != nil {
		return *p.NetworkPolicy, true
	}
	if c, known := CNIOf(p.CNI); known && c.NetworkPolicy != nil {
		return *c.NetworkPolicy, true
	}
	return false, false
}

// DropsOutboundICMP says whether ICMP leaving the pool's pod network gets
// no answer: true only for a CNI documented so.
func (p Pool) DropsOutboundICMP() bool {
	c, ok := CNIOf(p.CNI)
	return ok && c.DropsOutboundICMP
}

func knownCNINames() string {
	var names []string
	for _, c := range knownCNIs {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// networkModes are the Windows container network modes (HNS network
// types) kubernetes.io/docs/concepts/services-networking/windows-networking
// lists under Network modes.
var networkModes = []string{"l2bridge", "l2tunnel", "overlay", "transparent", "nat"}

func knownMode(m string) bool {
	for _, k := range networkModes {
		if strings.EqualFold(k, m) {
			return true
		}
	}
	return false
}

// Mode is the pool's Windows network mode: its networkMode field, else
// the mode its CNI always uses (win-bridge is l2bridge, win-overlay
// overlay); "" when unknown (flannel, Calico, Antrea and Azure CNI each
// run more than one).
func (p Pool) Mode() string {
	if p.NetworkMode != "" {
		return strings.ToLower(p.NetworkMode)
	}
	c, _ := CNIOf(p.CNI)
	switch c.Name {
	case "win-bridge":
		return "l2bridge"
	case "win-overlay":
		return "overlay"
	}
	return ""
}
