package doctor

// Causes found on a node's service logs (the kubelet's node log query),
// not on a pod's events: the pods may look healthy while the node is not.

const (
	srcKubeletRuntime = "kubernetes/kubernetes v1.36.3 pkg/kubelet/kubelet.go (updateRuntimeUp: \"Container runtime not ready\", \"Container runtime network not ready\") and pkg/kubelet/runtime.go (container runtime is down)"
	srcWinkernel      = "kubernetes/kubernetes v1.36.3 pkg/proxy/winkernel/proxier.go"
	srcFlannelWindows = "https://github.com/flannel-io/flannel/blob/master/pkg/backend/vxlan/device_windows.go (ensureNetwork, checkHostNetworkReady; commit 00014d09)"
	srcLogQuery       = "kubernetes/kubernetes v1.36.3 pkg/kubelet/kubelet_server_journal.go and kubelet_server_journal_windows.go (node log query: Get-WinEvent, else C:\\var\\log\\<service>.log)"
)

// RuntimeEndpointUnreachable: the kubelet cannot reach containerd.
var RuntimeEndpointUnreachable = &Cause{
	ID: "runtime-endpoint-unreachable", Title: "The kubelet cannot reach the container runtime",
	Explain: "The kubelet's log says the container runtime is not ready: it cannot reach containerd on its CRI endpoint (on Windows the named pipe npipe:////./pipe/containerd-containerd). containerd is stopped or crashing, or the kubelet's containerRuntimeEndpoint names another pipe or a Unix socket. No pod on the node can start or be stopped until it is reachable, and the node goes NotReady.",
	Steps: []string{
		"On the node, check that containerd runs: Get-Service containerd.",
		"Read containerd's log for why it stopped, then start it.",
		"Check the kubelet's containerRuntimeEndpoint (winkube audit reports it from /configz as kubelet-runtime-endpoint).",
	},
	Commands: []Command{
		onNode("Get-Service containerd, kubelet"),
		onNode("Start-Service containerd"),
		kubectl("kubectl get --raw /api/v1/nodes/{node}/proxy/logs/?query=containerd&tailLines=100"),
		kubectl("kubectl get --raw /api/v1/nodes/{node}/proxy/configz"),
	},
	Patterns: []Pattern{
		{Text: "Container runtime not ready", Runtime: "kubelet", Source: srcKubeletRuntime},
		{Text: "container runtime is down", Runtime: "kubelet", Source: srcKubeletRuntime},
	},
	Sources: []string{srcKubeletRuntime, srcLogQuery, "kubernetes.io/docs/setup/production-environment/container-runtimes (containerd: npipe://./pipe/containerd-containerd on Windows)"},
}

// SandboxNetworkSetupFailing: the CNI fails on every new sandbox.
var SandboxNetworkSetupFailing = &Cause{
	ID: "sandbox-network-setup-failing", Title: "containerd cannot set up pod networks on the node (CNI)",
	Explain: "containerd's log shows the CNI plugin failing to set up the network of new pod sandboxes, or the kubelet's log shows the runtime's network not ready (no CNI configuration loaded). New pods on the node stay in ContainerCreating; pods already running keep their network, so the node can look healthy until something is rescheduled.",
	Steps: []string{
		"Read the CNI plugin named in the line (plugin type=...) and its own log.",
		"Check the HNS network the CNI configuration names exists: Get-HNSNetwork.",
		"Check the CNI configuration and binaries: C:\\etc\\cni\\net.d and C:\\opt\\cni\\bin.",
		"Restart the CNI DaemonSet pod on the node, then containerd.",
	},
	Commands: []Command{
		onNode("Get-HNSNetwork | Select-Object Name, Type, AddressPrefix"),
		onNode(`Get-ChildItem C:\etc\cni\net.d; Get-ChildItem C:\opt\cni\bin`),
		kubectl("kubectl get pods -A -o wide --field-selector spec.nodeName={node}"),
	},
	Patterns: []Pattern{
		{Text: "failed to setup network for sandbox", Runtime: "containerd", Source: srcCtrNetwork},
		{Text: "Container runtime network not ready", Runtime: "kubelet", Source: srcKubeletRuntime},
	},
	Sources: []string{srcCtrNetwork, srcKubeletRuntime, srcLogQuery},
}

// HNSLoadBalancerFailing: kube-proxy cannot program Services.
var HNSLoadBalancerFailing = &Cause{
	ID: "hns-load-balancer-failing", Title: "kube-proxy cannot create or sync HNS load balancers: Services are unreachable from Windows pods",
	Explain: "kube-proxy's winkernel proxier programs each Service as an HNS load balancer policy on the node. Its log shows that creating, querying or updating those policies fails, so connections from the node's pods to ClusterIPs, NodePorts or load balancer IPs go nowhere, while the pods themselves are Running and Ready. Common reasons: the HNS network changed under kube-proxy (the CNI recreated it), a DSR/overlay setting the network does not support, or stale policies after an HNS restart.",
	Steps: []string{
		"Read the failing Service and error in kube-proxy's log line.",
		"List the HNS load balancers and compare with the Services: Get-HnsPolicyList.",
		"Restart kube-proxy on the node; if errors persist, check winkernel settings (enableDSR, networkName, sourceVip) with winkube nodeconfig validate.",
	},
	Commands: []Command{
		onNode("Get-HnsPolicyList | Select-Object ID, Policies"),
		onNode("Restart-Service kube-proxy"),
		kubectl("kubectl get --raw '/api/v1/nodes/{node}/proxy/logs/?query=kube-proxy&tailLines=200'"),
	},
	Patterns: []Pattern{
		{Text: "ClusterIP policy creation failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "Nodeport policy creation failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "ExternalIP policy creation failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "IngressIP policy creation failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "Querying HNS for load balancers failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "Update loadbalancer policy failed", Runtime: "kube-proxy", Source: srcWinkernel},
		{Text: "Remote endpoint creation failed for service VIP", Runtime: "kube-proxy", Source: srcWinkernel},
	},
	Sources: []string{srcWinkernel + " (syncProxyRules)", srcLogQuery, "kubernetes.io/docs/concepts/services-networking/windows-networking (Load balancing and Services)"},
}

// HNSNetworkMissing: the HNS network kube-proxy expects is not there.
var HNSNetworkMissing = &Cause{
	ID: "hns-network-missing", Title: "The HNS network kube-proxy and the CNI use does not exist",
	Explain: "kube-proxy looks up the HNS network named by its networkName (or the KUBE_NETWORK environment variable) and cannot find it, or finds it replaced since its last sync. The CNI creates that network (flannel's vxlan0 or cbr0, Calico's Calico, Antrea's antrea-hnsnetwork); until it exists kube-proxy programs no Service and new pods get no network.",
	Steps: []string{
		"List the HNS networks on the node: Get-HNSNetwork.",
		"Compare their names with kube-proxy's networkName and the CNI configuration's name.",
		"Start or restart the CNI daemon (flanneld, CalicoNode, antrea-agent) so it creates the network, then restart kube-proxy.",
	},
	Commands: []Command{
		onNode("Get-HNSNetwork | Select-Object Name, Type, AddressPrefix"),
		onNode(`Get-Content C:\etc\cni\net.d\*`),
		onNode("Restart-Service kube-proxy"),
	},
	Patterns: []Pattern{
		{Text: "Unable to find HNS Network specified, please check network name and CNI deployment", Runtime: "kube-proxy", Source: srcWinkernel + " (getNetworkInfo)"},
		{Text: "The HNS network is not present or has changed since the last sync, please check the CNI deployment", Runtime: "kube-proxy", Source: srcWinkernel + " (syncProxyRules)"},
	},
	Sources: []string{srcWinkernel, "microsoft/hcsshim v0.13.0 hcn/hcnerrors.go (NetworkNotFoundError: Network name %q not found)", srcLogQuery},
}

// FlannelWaitingForNetwork: flannel's HNS network never becomes ready.
var FlannelWaitingForNetwork = &Cause{
	ID: "flannel-waiting-for-network", Title: "flannel cannot bring up its HNS network on the node",
	Explain: "flanneld on Windows creates its HNS network (vxlan0 for VXLAN, cbr0 for host-gw) and waits for HNS to give it a management IP and for the host interface bound to it to come up. Its log shows that wait timing out, so the network is never ready: the CNI has nothing to attach pods to and kube-proxy finds no network.",
	Steps: []string{
		"Read flanneld's log for the network name and the interface it waited on.",
		"Check the HNS network and the host's vEthernet adapters: Get-HNSNetwork, Get-NetAdapter.",
		"Check that the interface flannel binds to (--iface) exists and has the node's IP, then restart flanneld.",
	},
	Commands: []Command{
		onNode("Get-HNSNetwork | Select-Object Name, Type, ManagementIP"),
		onNode("Get-NetAdapter; Get-NetIPAddress -AddressFamily IPv4"),
		kubectl("kubectl -n kube-flannel get pods -o wide --field-selector spec.nodeName={node}"),
	},
	Patterns: []Pattern{
		{Text: "timeout, failed to get management IP from HostComputeNetwork", Runtime: "flannel", Source: srcFlannelWindows},
		{Text: "timeout, failed to get net interface for HostComputeNetwork", Runtime: "flannel", Source: srcFlannelWindows},
		{Text: "took too long to get ready. Please check your network host configuration", Runtime: "flannel", Source: srcFlannelWindows},
	},
	Sources: []string{srcFlannelWindows, srcLogQuery},
}

// SourceVIPProblem: kube-proxy on an overlay network has no source VIP.
var SourceVIPProblem = &Cause{
	ID: "source-vip-problem", Title: "kube-proxy has no usable source VIP on an overlay network",
	Explain: "On an overlay (VXLAN) network the winkernel proxier needs a source VIP: an address from the node's pod subnet, given as sourceVip (--source-vip), which the node's startup scripts usually take from a sourceVip.json file written by the host-local IPAM plugin. kube-proxy's log shows it unset or its HNS endpoint failing, so it exits or programs no load balancer and Services are unreachable from the node's pods.",
	Steps: []string{
		"Read kube-proxy's configuration: winkernel.sourceVip (or --source-vip).",
		"If the start script reads sourceVip.json, check the file exists and holds an IP of the node's pod subnet; delete it and restart kube-proxy to have it allocated again.",
		"Check no other HNS endpoint holds that IP: Get-HNSEndpoint.",
	},
	Commands: []Command{
		onNode("Get-HNSEndpoint | Select-Object Name, IPAddress"),
		onNode(`Get-ChildItem -Recurse C:\k, C:\etc -Filter sourceVip*.json | Get-Content`),
		kubectl("kubectl get node {node} -o jsonpath='{.spec.podCIDR}'"),
	},
	Patterns: []Pattern{
		{Text: "source-vip flag not set", Runtime: "kube-proxy", Source: srcWinkernel + " (NewProxier: overlay networks need a source VIP)"},
		{Text: "Source Vip endpoint creation failed", Runtime: "kube-proxy", Source: srcWinkernel + " (syncProxyRules)"},
	},
	Sources: []string{srcWinkernel, "kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1 (KubeProxyWinkernelConfiguration.sourceVip)", srcLogQuery},
}

// nodeCauses are matched on node logs, in the order tried.
func nodeCauses() []*Cause {
	return []*Cause{RuntimeEndpointUnreachable, SandboxNetworkSetupFailing, HNSLoadBalancerFailing, HNSNetworkMissing, FlannelWaitingForNetwork, SourceVIPProblem}
}

// KeepLogLine says whether a node log line can show a node cause: the
// only lines worth keeping in memory (fetch.KubeletOptions.KeepLine).
func KeepLogLine(_ string, line string) bool {
	for _, c := range nodeCauses() {
		if _, ok := anyMatch(line, c.Patterns); ok {
			return true
		}
	}
	return false
}
