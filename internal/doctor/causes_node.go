package doctor

import "github.com/winkube/winkube/internal/live/nodelog"

// Causes found on a node's service logs (the kubelet's node log query),
// not on a pod's events: the pods may look healthy while the node is not.
// What the lines say, their sources and the runbook are shared with
// audit's node-log rules (internal/live/nodelog); the commands are
// doctor's.

const (
	srcWinkernel = nodelog.SrcWinkernel
	srcLogQuery  = nodelog.SrcLogQuery
)

// fromSignature is the cause a node-log signature shows.
func fromSignature(s *nodelog.Signature, commands []Command) *Cause {
	return &Cause{ID: s.ID, Title: s.Title, Explain: s.Explain, Steps: s.Steps, Commands: commands, Patterns: s.Patterns, Sources: s.Sources, signature: s}
}

// RuntimeEndpointUnreachable: see nodelog.RuntimeEndpointUnreachable.
var RuntimeEndpointUnreachable = fromSignature(nodelog.RuntimeEndpointUnreachable, []Command{
	onNode("Get-Service containerd, kubelet"),
	onNode("Start-Service containerd"),
	kubectl("kubectl get --raw /api/v1/nodes/{node}/proxy/logs/?query=containerd&tailLines=100"),
	kubectl("kubectl get --raw /api/v1/nodes/{node}/proxy/configz"),
})

// SandboxNetworkSetupFailing: see nodelog.SandboxNetworkSetupFailing.
var SandboxNetworkSetupFailing = fromSignature(nodelog.SandboxNetworkSetupFailing, []Command{
	onNode("Get-HNSNetwork | Select-Object Name, Type, AddressPrefix"),
	onNode(`Get-ChildItem C:\etc\cni\net.d; Get-ChildItem C:\opt\cni\bin`),
	kubectl("kubectl get pods -A -o wide --field-selector spec.nodeName={node}"),
})

// HNSLoadBalancerFailing: see nodelog.HNSLoadBalancerFailing.
var HNSLoadBalancerFailing = fromSignature(nodelog.HNSLoadBalancerFailing, []Command{
	onNode("Get-HnsPolicyList | Select-Object ID, Policies"),
	onNode("Restart-Service kube-proxy"),
	kubectl("kubectl get --raw '/api/v1/nodes/{node}/proxy/logs/?query=kube-proxy&tailLines=200'"),
})

// HNSNetworkMissing: see nodelog.HNSNetworkMissing.
var HNSNetworkMissing = fromSignature(nodelog.HNSNetworkMissing, []Command{
	onNode("Get-HNSNetwork | Select-Object Name, Type, AddressPrefix"),
	onNode(`Get-Content C:\etc\cni\net.d\*`),
	onNode("Restart-Service kube-proxy"),
})

// FlannelWaitingForNetwork: see nodelog.FlannelWaitingForNetwork.
var FlannelWaitingForNetwork = fromSignature(nodelog.FlannelWaitingForNetwork, []Command{
	onNode("Get-HNSNetwork | Select-Object Name, Type, ManagementIP"),
	onNode("Get-NetAdapter; Get-NetIPAddress -AddressFamily IPv4"),
	kubectl("kubectl -n kube-flannel get pods -o wide --field-selector spec.nodeName={node}"),
})

// SourceVIPProblem: see nodelog.SourceVIPProblem.
var SourceVIPProblem = fromSignature(nodelog.SourceVIPProblem, []Command{
	onNode("Get-HNSEndpoint | Select-Object Name, IPAddress"),
	onNode(`Get-ChildItem -Recurse C:\k, C:\etc -Filter sourceVip*.json | Get-Content`),
	kubectl("kubectl get node {node} -o jsonpath='{.spec.podCIDR}'"),
})

// nodeCauses are matched on node logs, in the order tried.
func nodeCauses() []*Cause {
	return []*Cause{RuntimeEndpointUnreachable, SandboxNetworkSetupFailing, HNSLoadBalancerFailing, HNSNetworkMissing, FlannelWaitingForNetwork, SourceVIPProblem}
}

// KeepLogLine says whether a node log line can show a node cause: the
// only lines worth keeping in memory (fetch.KubeletOptions.KeepLine).
func KeepLogLine(service, line string) bool { return nodelog.Keep(service, line) }
