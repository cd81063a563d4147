package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Messages the exported admission policies build from the same templates
// (internal/policy's celf).
const (
	// HostPortNoMappingMsg: "hostPort(s)", the ports, the container, the pool.
	HostPortNoMappingMsg = "%s %s on Windows container %q: the CNI plugin of Windows pool %q does not map ports, so the node does not open them"
	DNSHostNetMsg        = "dnsPolicy ClusterFirstWithHostNet is not supported on Windows: Windows pods never share the host network, so at best it acts as the default ClusterFirst; remove it"
)

// Message templates of Linux-only rules, declared once: the rules format
// them with fmt and the exported admission policy (internal/policy)
// renders the same templates as CEL.
const (
	LinuxShellMsg       = "container %q runs %s, a Linux shell that Windows images do not have: the container will not start"
	MountPropagationMsg = "mountPropagation %s of volume %q is not supported on Windows: the kubelet makes the mount private, so nothing propagates"
	VolumeDevicesMsg    = "volumeDevices %q (devicePath %s): Windows cannot attach raw block devices to pods"
	MemoryEmptyDirMsg   = "emptyDir %q has medium Memory, which Windows does not support (no RAM disk): the kubelet creates a plain directory on the node's disk instead"
)

// Linux-only features on Windows-bound workloads. The fields the API
// server itself forbids for Windows pods (privileged, capabilities,
// runAsUser, seccomp, hostPID...) are windows-forbidden-field's; these
// rules cover what the API server accepts and Windows then ignores or
// fails on.
var linuxOnlyRules = []*rule.Rule{
	WindowsHostNetwork,
	WindowsHostPort,
	WindowsDNSHostNet,
	WindowsMemoryEmptyDir,
	WindowsHugepages,
	WindowsSubPath,
	WindowsMountPropagation,
	WindowsVolumeDevices,
	WindowsUnsupportedVolume,
	WindowsLinuxPath,
	WindowsLinuxShell,
	WindowsSidecarUnsupported,
	HostProcessRootRelativeCommand,
}

// windowsBound reports whether the rule applies: the workload is for
// Windows, whichever signal says so.
func windowsBound(p *rule.Pass) bool { return p.Target.Is(target.Windows) }

// WindowsHostNetwork: host networking outside HostProcess.
var WindowsHostNetwork = &rule.Rule{
	ID:       "windows-host-network",
	Title:    "Windows pod asks for host networking without HostProcess",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports hostNetwork: true on a Windows workload that has no HostProcess containers, with what the selected Kubernetes release does with it: before 1.26 host networking is not available to Windows pods, in 1.26-1.32 it is alpha behind the WindowsHostNetwork feature gate (off by default), after 1.32 it is gone. HostProcess pods must set hostNetwork: true and are not reported.",
		Why:  "The API server accepts the field, but a Windows pod that is not HostProcess still gets its own container network: hostNetwork: true changes nothing, so a server expecting to listen on the node's address is unreachable there, and clients of the node IP fail.",
		Fix:  "Expose the pod through a Service (NodePort or LoadBalancer) and remove hostNetwork; for a node agent that really needs the host's network, make the pod a HostProcess pod (securityContext.windowsOptions.hostProcess: true with runAsUserName NT AUTHORITY\\SYSTEM).",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork (hostNetwork: host networking is not possible on Windows; v1.26 to v1.32 alpha, no WindowsHostNetwork in v1.35)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork (V1.Pod.hostNetwork: no Windows OS support to share the host network)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork (No HostPort or HostNetwork; use a NodePort or LoadBalancer service)",
			"https://github.com/kubernetes/enhancements/issues/3503 (KEP-3503): hostNetwork=true on a Windows pod does not change anything unless it has HostProcess containers",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if !windowsBound(p) || !s.HostNetwork || p.Target.HostProcess {
			return
		}
		path := p.Workload.SpecPath.Child("hostNetwork")
		// Not safe: the workload's exposure changes. A ClusterFirstWithHostNet
		// dnsPolicy is windows-dns-host-net's to remove.
		fix := &rule.Fix{Title: "remove hostNetwork", Edits: []rule.Edit{{Op: rule.Remove, Path: rule.Path(path)}}}
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: "hostNetwork: true on a Windows pod without HostProcess containers: " + p.Model.HostNetworkState() + "; the pod gets a container network, not the node's",
			Hint:    "expose it with a NodePort or LoadBalancer Service, or make it a HostProcess pod if it is a node agent",
			Fix:     fix})
	},
}

// WindowsHostPort: hostPort mappings on Windows.
var WindowsHostPort = &rule.Rule{
	ID:       "windows-host-port",
	Title:    "Windows container maps a hostPort the pool's CNI does not open",
	Severity: rule.Warning,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports, once per container, the containers[].ports[].hostPort values of a Windows workload that does not use the host network (HostProcess pods do, and their hostPort is just the container port), when a Windows pool of the cluster profile says its CNI plugin does not map ports (cniPortMappings: false). With no such pool nothing is reported: the Windows plugins Kubernetes documents declare the portMappings capability, and winkube does not assume a CNI that lacks it.",
		Why:  "A hostPort is a port mapping the CNI plugin sets up on the node. The older guidance (https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork) is that Windows nodes do not support hostPort at all; with containerd it works when the Windows CNI plugin implements the portMappings capability through HNS, as sdnbridge (win-bridge), sdnoverlay (win-overlay), Azure CNI and the flannel and Antrea configurations winkube nodeconfig writes do; Calico's Windows configuration declares only dns. Where the plugin does not, the port is not opened and clients of nodeIP:hostPort get no answer, while the scheduler still reserves the port, limiting the pod to one replica per node.",
		Fix:  "Remove hostPort and expose the container through a Service of type NodePort or LoadBalancer, or use a CNI that maps ports on Windows.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork (No HostPort or HostNetwork: Windows nodes do not support hostPort or hostNetwork: true; use a NodePort or LoadBalancer service)",
			"https://github.com/microsoft/windows-container-networking/tree/master/example sdnbridge and sdnoverlay configurations (capabilities: portMappings)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if !windowsBound(p) || s.HostNetwork || p.Target.HostProcess {
			return
		}
		pool, ok := noPortMappingsPool(p)
		if !ok {
			return
		}
		winsupport.VisitContainers(s, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			var ports []string
			var edits []rule.Edit
			first := ""
			for j, port := range c.Ports {
				if port.HostPort == 0 {
					continue
				}
				path := rule.Path(cp.Child("ports").Index(j).Child("hostPort"))
				if first == "" {
					first = path
				}
				ports = append(ports, fmt.Sprintf("%d", port.HostPort))
				edits = append(edits, rule.Edit{Op: rule.Remove, Path: path})
			}
			if len(ports) == 0 {
				return
			}
			p.Report(rule.Finding{Path: first,
				Message: fmt.Sprintf(HostPortNoMappingMsg, plural(len(ports), "hostPort", "hostPorts"), resourceList(ports), c.Name, pool),
				Hint:    "expose the port with a NodePort or LoadBalancer Service instead; the cluster profile says cniPortMappings: false for the pool",
				Fix:     &rule.Fix{Title: "remove " + plural(len(ports), "hostPort", "hostPorts"), Edits: edits}})
		})
	},
}

// noPortMappingsPool returns the first Windows pool whose profile says its
// CNI plugin does not map ports.
func noPortMappingsPool(p *rule.Pass) (string, bool) {
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if pool.CNIPortMappings != nil && !*pool.CNIPortMappings {
			return pool.Name, true
		}
	}
	return "", false
}

// WindowsDNSHostNet: a DNS policy that presumes host networking.
var WindowsDNSHostNet = &rule.Rule{
	ID:       "windows-dns-host-net",
	Title:    "Windows pod uses dnsPolicy ClusterFirstWithHostNet",
	Severity: rule.Warning,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports dnsPolicy: ClusterFirstWithHostNet on a Windows workload that asks for hostNetwork without being HostProcess (windows-host-network reports the host networking itself). Without hostNetwork the kubelet treats the policy as ClusterFirst, so charts that set it for their Linux host-network variant are not reported.",
		Why:  "ClusterFirstWithHostNet exists for pods on the host network, which Windows pods other than HostProcess do not get; the policy is not supported on Windows. Windows also resolves names differently: it has one DNS suffix (the pod's namespace) and treats any name with a dot as fully qualified.",
		Fix:  "Remove dnsPolicy (the default, ClusterFirst, gives Windows pods cluster DNS); winkube fix does.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (dnsPolicy: ClusterFirstWithHostNet is not supported on Windows because host networking is not provided)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (DNS: ClusterFirstWithHostNet is not supported; one DNS suffix)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		// Without hostNetwork the kubelet treats ClusterFirstWithHostNet
		// as ClusterFirst (pkg/kubelet/network/dns getPodDNSType): dead
		// configuration, not a fault, so it is not reported.
		if !windowsBound(p) || s.DNSPolicy != corev1.DNSClusterFirstWithHostNet || p.Target.HostProcess || !s.HostNetwork {
			return
		}
		path := rule.Path(p.Workload.SpecPath.Child("dnsPolicy"))
		p.Report(rule.Finding{Path: path,
			Message: DNSHostNetMsg,
			Fix:     &rule.Fix{Title: "remove dnsPolicy", Safe: true, Edits: []rule.Edit{{Op: rule.Remove, Path: path}}}})
	},
}
