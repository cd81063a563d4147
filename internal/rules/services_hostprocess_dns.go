package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
)

// HostProcessDNSMsg is windows-hostprocess-cluster-dns's message: where,
// then the names, each quoted and joined by ", ".
const HostProcessDNSMsg = "%s names %s, but dnsPolicy ClusterFirstWithHostNet does not reach a HostProcess pod: containerd sets up no pod network for it, so it resolves with the node's DNS, which knows cluster names only if the node is set up to"

// hostProcessDNSHint is the hint of HostProcessDNSMsg's findings.
const hostProcessDNSHint = "use the Service's cluster IP (KUBERNETES_SERVICE_HOST for the API server), or make the node's DNS forward the cluster domain"

// WindowsHostProcessClusterDNS: a HostProcess pod that asks for cluster
// DNS and names Services by DNS name.
var WindowsHostProcessClusterDNS = &rule.Rule{
	ID:       "windows-hostprocess-cluster-dns",
	Title:    "HostProcess pod relies on dnsPolicy ClusterFirstWithHostNet to resolve Service names",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, in a Windows HostProcess workload with dnsPolicy: ClusterFirstWithHostNet, Service DNS names (service.namespace.svc[.<cluster domain>], kubernetes.default, and service.namespace where the input holds that Service) in its containers' command, args, env values, exec probes and exec hooks. HostProcess workloads with another dnsPolicy are not reported: under ClusterFirst a host-network pod uses the node's DNS by design, and whether the node resolves cluster names is the platform's choice. Linux host-network pods, which ClusterFirstWithHostNet serves, are not checked.",
		Why:  "On Linux, ClusterFirstWithHostNet gives a host-network pod the cluster DNS server in its resolv.conf. On Windows the kubelet's DNS settings reach a container only through the CNI plugin (containerd passes them as the CNI dns capability), and containerd sets up no pod network for a HostProcess sandbox: the pod resolves with the node's own DNS client, and Service names resolve only if the node's DNS resolves the cluster domain, which it usually does not.",
		Fix:  "Reach the Service by its cluster IP (for the API server, the KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT environment variables the kubelet sets), or configure the Windows nodes' DNS to forward the cluster domain to the cluster DNS server.",
		Sources: []string{
			"containerd/containerd v2.1.4 internal/cri/server/sandbox_run.go (no pod network is set up for a host-network sandbox; the pod's DNSConfig reaches the CNI plugin as its dns capability in cniNamespaceOpts)",
			"containerd/containerd v2.1.4 internal/cri/server/helpers.go hostNetwork (on Windows, a HostProcess sandbox is host-network)",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/network/dns/dns.go getPodDNSType (ClusterFirstWithHostNet asks for the cluster DNS; ClusterFirst on the host network falls back to the node's)",
			"kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod (HostProcess containers run on the host network)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if !windowsBound(p) || !p.Target.HostProcess || s.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
			return
		}
		domain := p.Cluster.Domain()
		svcname.Visit(s, p.Workload.SpecPath, func(path *field.Path, where, value string) {
			names := svcname.Find(value, "", domain)
			if len(names) == 0 {
				return
			}
			p.Later(rule.Finding{Path: rule.Path(path)}, func(in *rule.Evidence, f *rule.Finding) bool {
				var named []string
				for _, n := range names {
					if n.Always || in.Services[rule.ServiceKey(n.Namespace, n.Service)] {
						named = append(named, fmt.Sprintf("%q", n.Name))
					}
				}
				if len(named) == 0 {
					return false
				}
				f.Message = fmt.Sprintf(HostProcessDNSMsg, where, strings.Join(named, ", "))
				f.Hint = hostProcessDNSHint
				return true
			})
		})
	},
}
