package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/target"
)

// WindowsDNSPartialNameConfig: windows-dns-partial-name for the
// ConfigMaps Windows pods read.
var WindowsDNSPartialNameConfig = &rule.Rule{
	ID:       "windows-dns-partial-name-config",
	Title:    "ConfigMap read by Windows pods names a Service by a partially qualified name",
	Severity: rule.Error,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, in the data of a ConfigMap that a Windows workload of the same namespace reads (as a volume, a projected volume, envFrom or configMapKeyRef), host names of the form service.namespace.svc and service.namespace where the input holds that Service, as windows-dns-partial-name does for the workload's own fields. A HostProcess reader is reported only when its dnsPolicy is ClusterFirstWithHostNet, as a warning with windows-hostprocess-cluster-dns's reason: it resolves with the node's DNS, where the fully qualified name does not help either. ConfigMaps read only by Linux workloads are not checked. No fix is offered: the values are often block scalars of another program's configuration.",
		Why:  "A Windows pod has one DNS suffix, its namespace's, and treats every name with a dot as fully qualified, so backend.shop and backend.shop.svc do not resolve from it while they do from Linux pods reading the same ConfigMap. A HostProcess pod has no pod network and resolves with the node's DNS client, which knows cluster names only if the node is set up to, whatever dnsPolicy asks.",
		Fix:  "Write service.namespace.svc.<cluster domain> in the ConfigMap (the message gives the name with the profile's clusterDomain). For a HostProcess reader, reach the Service by its cluster IP (the API server: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which the kubelet sets), or make the node's DNS forward the cluster domain.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (Windows treats all names with a . as a FQDN; one DNS suffix, that of the pod's namespace)",
			"containerd/containerd v2.1.4 internal/cri/server/sandbox_run.go (no pod network is set up for a host-network sandbox; the pod's DNSConfig reaches the CNI plugin as its dns capability in cniNamespaceOpts)",
			"containerd/containerd v2.1.4 internal/cri/server/helpers.go hostNetwork (on Windows, a HostProcess sandbox is host-network)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		services := map[string]bool{}
		for _, s := range p.Services {
			services[rule.ServiceKey(s.Namespace, s.Name)] = true
		}
		domain := p.Cluster.Domain()
		for _, obj := range p.ConfigMaps {
			cm, _ := obj.Typed.(*corev1.ConfigMap)
			if cm == nil {
				continue
			}
			readers, hostProcess := configReaders(p.Workloads, obj)
			if len(readers) == 0 && len(hostProcess) == 0 {
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
				var named, where []string
				for _, n := range svcname.PartialNames(cm.Data[k], domain) {
					if n.Always || services[rule.ServiceKey(n.Namespace, n.Service)] {
						line := strings.Count(cm.Data[k][:n.Start], "\n") + 1
						named = append(named, fmt.Sprintf("%q on line %d (use %s)", n.Name, line, n.FQDN))
						where = append(where, fmt.Sprintf("%q on line %d", n.Name, line))
					}
				}
				if len(named) == 0 {
					continue
				}
				path := rule.Path(field.NewPath("data").Key(k))
				if len(readers) > 0 {
					p.Report(obj, rule.Finding{
						Path:    path,
						Message: fmt.Sprintf("key %s, read by Windows pods of %s, names %s: a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix, so the name does not resolve", k, svcRefs(readers), strings.Join(named, ", ")),
						Hint:    "write the fully qualified Service name with the cluster domain " + domain,
					})
				}
				if len(hostProcess) > 0 {
					p.Report(obj, rule.Finding{
						Path:     path,
						Severity: rule.Warning,
						Message:  fmt.Sprintf(HostProcessDNSMsg, fmt.Sprintf("key %s, read by HostProcess pods of %s,", k, svcRefs(hostProcess)), strings.Join(where, ", ")),
						Hint:     hostProcessDNSHint,
					})
				}
			}
		}
	},
}

// configReaders are the Windows workloads in the ConfigMap's namespace
// that read it: pods, and HostProcess pods that ask for cluster DNS with
// dnsPolicy ClusterFirstWithHostNet. Other HostProcess pods resolve with
// the node's DNS by design (windows-hostprocess-cluster-dns).
func configReaders(ws []rule.Summary, obj *manifest.Object) (pods, hostProcess []rule.Summary) {
	ns := svcNamespace(obj.Namespace)
	for _, w := range ws {
		if w.OS != target.Windows || svcNamespace(w.Namespace) != ns || !slices.Contains(w.ConfigMaps, obj.Name) {
			continue
		}
		switch {
		case !w.HostProcess:
			pods = append(pods, w)
		case w.DNSPolicy == string(corev1.DNSClusterFirstWithHostNet):
			hostProcess = append(hostProcess, w)
		}
	}
	return pods, hostProcess
}
