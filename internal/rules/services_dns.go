package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
)

// DNSPartialNameMsg is windows-dns-partial-name's message: where, then
// the names, each written as DNSPartialNameItem and joined by ", ".
const (
	DNSPartialNameMsg  = "%s names %s: a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix, so the name does not resolve"
	DNSPartialNameItem = "%q (use %s)"
)

// WindowsDNSPartialName: a Service name with a dot that is not fully
// qualified, which Windows does not expand.
var WindowsDNSPartialName = &rule.Rule{
	ID:       "windows-dns-partial-name",
	Title:    "Windows workload names a Service by a partially qualified name",
	Severity: rule.Error,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, in a Windows workload's container command, args, env values, exec probes and exec lifecycle hooks, host names of the form service.namespace.svc (always a Service name) and service.namespace where the input holds that Service in that namespace, or the API server's kubernetes.default. Names in URLs, host:port pairs and connection strings are found; a path segment (/orders.v1.svc) is not a host and is skipped, and so are httpGet and tcpSocket hosts, which the kubelet resolves on the node, not the pod. Linux workloads are not checked: their resolver expands these names through its search list. HostProcess workloads are not checked either: they resolve with the node's DNS client (windows-hostprocess-cluster-dns).",
		Why:  "A Windows pod has one DNS suffix, the one of its namespace (shop.svc.cluster.local), and treats every name with a dot as fully qualified, so it does not try the suffix. From a Windows pod backend and backend.shop.svc.cluster.local resolve, but backend.shop and backend.shop.svc do not, while the same manifest works on Linux.",
		Fix:  "Write the fully qualified name with the cluster's domain (service.namespace.svc.cluster.local, or the profile's clusterDomain); winkube fix does, as a safe fix when the cluster profile names its clusterDomain. A Service in the pod's own namespace can also be named without a dot.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (Windows treats all names with a . as a FQDN; one DNS suffix, that of the pod's namespace; kubernetes.default and kubernetes.default.svc do not resolve)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Network modes (Pod → Service (PQDN, but only if there are no \".\"))",
		},
	},
	Workload: func(p *rule.Pass) {
		// HostProcess pods resolve with the node's DNS client, not a
		// pod's single suffix (windows-hostprocess-cluster-dns).
		if !windowsBound(p) || p.Target.HostProcess {
			return
		}
		domain := p.Cluster.Domain()
		safe := p.Cluster.ClusterDomain != ""
		svcname.Visit(p.Workload.Spec, p.Workload.SpecPath, func(path *field.Path, where, value string) {
			names := svcname.PartialNames(value, domain)
			if len(names) == 0 {
				return
			}
			f := rule.Finding{Path: rule.Path(path)}
			p.Later(f, func(in *rule.Evidence, f *rule.Finding) bool {
				var kept []svcname.Name
				for _, n := range names {
					if n.Always || in.Services[rule.ServiceKey(n.Namespace, n.Service)] {
						kept = append(kept, n)
					}
				}
				if len(kept) == 0 {
					return false
				}
				fixed, named := value, make([]string, 0, len(kept))
				for i := len(kept) - 1; i >= 0; i-- {
					n := kept[i]
					fixed = fixed[:n.Start] + n.FQDN + fixed[n.End:]
				}
				for _, n := range kept {
					named = append(named, fmt.Sprintf(DNSPartialNameItem, n.Name, n.FQDN))
				}
				f.Message = fmt.Sprintf(DNSPartialNameMsg, where, strings.Join(named, ", "))
				f.Hint = "write the fully qualified Service name with the cluster domain " + domain
				f.Fix = &rule.Fix{Title: "use the fully qualified Service name", Safe: safe, Edits: []rule.Edit{{Op: rule.Set, Path: f.Path, Value: fixed}}}
				return true
			})
		})
	},
}
