package nodelog

// Sources of the signatures: every string is quoted word for word from
// the file and tag named.
const (
	srcKubeletRuntime = "kubernetes/kubernetes v1.36.3 pkg/kubelet/kubelet.go (updateRuntimeUp: \"Container runtime not ready\" line 3272, \"Container runtime network not ready\" line 3262) and pkg/kubelet/runtime.go (line 129: container runtime is down)"
	// SrcWinkernel is kube-proxy's Windows proxier.
	SrcWinkernel      = "kubernetes/kubernetes v1.36.3 pkg/proxy/winkernel/proxier.go"
	srcFlannelWindows = "flannel-io/flannel v0.28.9 pkg/backend/vxlan/device_windows.go (ensureNetwork, checkHostNetworkReady)"
	srcFlannelDevice  = "flannel-io/flannel v0.28.9 pkg/backend/vxlan/device_windows.go"
	srcCalicoFelix    = "projectcalico/calico v3.32.1 felix/dataplane/windows/vxlan_mgr.go (line 128), logged by felix/dataplane/windows/win_dataplane.go (line 344: CompleteDeferredWork returned an error - scheduling a retry)"
	srcAntreaHNS      = "antrea-io/antrea v2.7.0 pkg/agent/util/net_windows.go (PrepareHNSNetwork, line 242), logged by cmd/antrea-agent/main.go (line 53: Error running agent)"
	srcCtrNetwork     = "containerd/containerd v2.1.4 internal/cri/server/sandbox_run.go (line 262: failed to setup network for sandbox)"
	// SrcLogQuery is the kubelet's node log query.
	SrcLogQuery = "kubernetes/kubernetes v1.36.3 pkg/kubelet/kubelet_server_journal.go and kubelet_server_journal_windows.go (node log query: Get-WinEvent, else C:\\var\\log\\<service>.log)"
)

// RuntimeEndpointUnreachable: the kubelet cannot reach containerd.
var RuntimeEndpointUnreachable = &Signature{
	ID: "runtime-endpoint-unreachable", Title: "The kubelet cannot reach the container runtime",
	Explain: "The kubelet's log says the container runtime is not ready: it cannot reach containerd on its CRI endpoint (on Windows the named pipe npipe:////./pipe/containerd-containerd). containerd is stopped or crashing, or the kubelet's containerRuntimeEndpoint names another pipe or a Unix socket. No pod on the node can start or be stopped until it is reachable, and the node goes NotReady.",
	Steps: []string{
		"On the node, check that containerd runs: Get-Service containerd.",
		"Read containerd's log for why it stopped, then start it.",
		"Check the kubelet's containerRuntimeEndpoint (winkube audit reports it from /configz as kubelet-runtime-endpoint).",
	},
	Patterns: []Pattern{
		{Text: "Container runtime not ready", Service: "kubelet", Source: srcKubeletRuntime},
		{Text: "container runtime is down", Service: "kubelet", Source: srcKubeletRuntime},
	},
	Sources: []string{srcKubeletRuntime, SrcLogQuery, "kubernetes.io/docs/setup/production-environment/container-runtimes (containerd: npipe://./pipe/containerd-containerd on Windows)"},
}

// SandboxNetworkSetupFailing: the CNI fails on every new sandbox.
var SandboxNetworkSetupFailing = &Signature{
	ID: "sandbox-network-setup-failing", Title: "containerd cannot set up pod networks on the node (CNI)",
	Explain: "containerd's log shows the CNI plugin failing to set up the network of new pod sandboxes, or the kubelet's log shows the runtime's network not ready (no CNI configuration loaded). New pods on the node stay in ContainerCreating; pods already running keep their network, so the node can look healthy until something is rescheduled.",
	Steps: []string{
		"Read the CNI plugin named in the line (plugin type=...) and its own log.",
		"Check the HNS network the CNI configuration names exists: Get-HNSNetwork.",
		"Check the CNI configuration and binaries: C:\\etc\\cni\\net.d and C:\\opt\\cni\\bin.",
		"Restart the CNI DaemonSet pod on the node, then containerd.",
	},
	Patterns: []Pattern{
		{Text: "failed to setup network for sandbox", Service: "containerd", Source: srcCtrNetwork},
		{Text: "Container runtime network not ready", Service: "kubelet", Source: srcKubeletRuntime},
	},
	Sources: []string{srcCtrNetwork, srcKubeletRuntime, SrcLogQuery},
}

// HNSLoadBalancerFailing: kube-proxy cannot program Services.
var HNSLoadBalancerFailing = &Signature{
	ID: "hns-load-balancer-failing", Title: "kube-proxy cannot create or sync HNS load balancers: Services are unreachable from Windows pods",
	Explain: "kube-proxy's winkernel proxier programs each Service as an HNS load balancer policy on the node. Its log shows that creating, querying or updating those policies fails, so connections from the node's pods to ClusterIPs, NodePorts or load balancer IPs go nowhere, while the pods themselves are Running and Ready. Common reasons: the HNS network changed under kube-proxy (the CNI recreated it), a DSR/overlay setting the network does not support, or stale policies after an HNS restart.",
	Steps: []string{
		"Read the failing Service and error in kube-proxy's log line.",
		"List the HNS load balancers and compare with the Services: Get-HnsPolicyList.",
		"Restart kube-proxy on the node; if errors persist, check winkernel settings (enableDSR, networkName, sourceVip) with winkube nodeconfig validate.",
	},
	Patterns: []Pattern{
		{Text: "ClusterIP policy creation failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1480)"},
		{Text: "Nodeport policy creation failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1534)"},
		{Text: "ExternalIP policy creation failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1590)"},
		{Text: "IngressIP policy creation failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1641)"},
		{Text: "Querying HNS for load balancers failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1191)"},
		{Text: "Update loadbalancer policy failed", Service: "kube-proxy", Source: SrcWinkernel + " (line 1119)"},
		{Text: "Remote endpoint creation failed for service VIP", Service: "kube-proxy", Source: SrcWinkernel + " (line 1234)"},
	},
	Sources: []string{SrcWinkernel + " (syncProxyRules)", SrcLogQuery, "kubernetes.io/docs/concepts/services-networking/windows-networking (Load balancing and Services)"},
}

// HNSNetworkMissing: the HNS network kube-proxy and the CNI use is not
// there.
var HNSNetworkMissing = &Signature{
	ID: "hns-network-missing", Title: "The HNS network kube-proxy and the CNI use does not exist",
	Explain: "kube-proxy looks up the HNS network named by its networkName (or the KUBE_NETWORK environment variable) and cannot find it, or finds it replaced since its last sync; Calico's Felix finds no HNS network matching its name, or Antrea's agent fails to create its own. The CNI creates that network (flannel's vxlan0 or cbr0, Calico's Calico, Antrea's antrea-hnsnetwork); until it exists kube-proxy programs no Service and new pods get no network.",
	Steps: []string{
		"List the HNS networks on the node: Get-HNSNetwork.",
		"Compare their names with kube-proxy's networkName and the CNI configuration's name.",
		"Start or restart the CNI daemon (flanneld, CalicoNode, antrea-agent) so it creates the network, then restart kube-proxy.",
	},
	Patterns: []Pattern{
		{Text: "Unable to find HNS Network specified, please check network name and CNI deployment", Service: "kube-proxy", Source: SrcWinkernel + " (getNetworkInfo, lines 231 and 1327)"},
		{Text: "The HNS network is not present or has changed since the last sync, please check the CNI deployment", Service: "kube-proxy", Source: SrcWinkernel + " (syncProxyRules, line 1156)"},
		{Text: "didn't find any HNS networks matching regular expression", Service: "CalicoFelix", Source: srcCalicoFelix},
		{Text: "error creating HNSNetwork", Service: "antrea-agent", Source: srcAntreaHNS},
	},
	Sources: []string{SrcWinkernel, "microsoft/hcsshim v0.13.0 hcn/hcnerrors.go (NetworkNotFoundError, line 110: Network name %q not found)", srcCalicoFelix, srcAntreaHNS, SrcLogQuery},
}

// FlannelWaitingForNetwork: flannel's HNS network never becomes ready.
var FlannelWaitingForNetwork = &Signature{
	ID: "flannel-waiting-for-network", Title: "flannel cannot bring up its HNS network on the node",
	Explain: "flanneld on Windows creates its HNS network (vxlan0 for VXLAN, cbr0 for host-gw) and waits for HNS to give it a management IP and for the host interface bound to it to come up. Its log shows that wait timing out, so the network is never ready: the CNI has nothing to attach pods to and kube-proxy finds no network.",
	Steps: []string{
		"Read flanneld's log for the network name and the interface it waited on.",
		"Check the HNS network and the host's vEthernet adapters: Get-HNSNetwork, Get-NetAdapter.",
		"Check that the interface flannel binds to (--iface) exists and has the node's IP, then restart flanneld.",
	},
	Patterns: []Pattern{
		{Text: "timeout, failed to get management IP from HostComputeNetwork", Service: "flanneld", Source: srcFlannelDevice + " (ensureNetwork, line 147)"},
		{Text: "timeout, failed to get net interface for HostComputeNetwork", Service: "flanneld", Source: srcFlannelDevice + " (checkHostNetworkReady, line 250)"},
		{Text: "took too long to get ready. Please check your network host configuration", Service: "flanneld", Source: srcFlannelDevice + " (ensureNetwork, line 152; also pkg/backend/vxlan/vxlan_windows.go line 197)"},
	},
	Sources: []string{srcFlannelWindows, SrcLogQuery},
}

// SourceVIPProblem: kube-proxy on an overlay network has no source VIP.
var SourceVIPProblem = &Signature{
	ID: "source-vip-problem", Title: "kube-proxy has no usable source VIP on an overlay network",
	Explain: "On an overlay (VXLAN) network the winkernel proxier needs a source VIP: an address from the node's pod subnet, given as sourceVip (--source-vip), which the node's startup scripts usually take from a sourceVip.json file written by the host-local IPAM plugin. kube-proxy's log shows it unset or its HNS endpoint failing, so it exits or programs no load balancer and Services are unreachable from the node's pods.",
	Steps: []string{
		"Read kube-proxy's configuration: winkernel.sourceVip (or --source-vip).",
		"If the start script reads sourceVip.json, check the file exists and holds an IP of the node's pod subnet; delete it and restart kube-proxy to have it allocated again.",
		"Check no other HNS endpoint holds that IP: Get-HNSEndpoint.",
	},
	Patterns: []Pattern{
		{Text: "source-vip flag not set", Service: "kube-proxy", Source: SrcWinkernel + " (NewProxier, line 751: overlay networks need a source VIP)"},
		{Text: "Source Vip endpoint creation failed", Service: "kube-proxy", Source: SrcWinkernel + " (syncProxyRules, line 1198)"},
	},
	Sources: []string{SrcWinkernel, "kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1 (KubeProxyWinkernelConfiguration.sourceVip)", SrcLogQuery},
}

// All returns the signatures, in the order they are tried.
func All() []*Signature {
	return []*Signature{RuntimeEndpointUnreachable, SandboxNetworkSetupFailing, HNSLoadBalancerFailing, HNSNetworkMissing, FlannelWaitingForNetwork, SourceVIPProblem}
}
