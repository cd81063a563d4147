package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/rule"
)

// The messages of WindowsDNSConfigIgnored; the exported admission policy
// builds its messages from the same templates.
const (
	DNSNdotsMsg    = "dnsConfig option ndots%s has no effect on Windows: a Windows pod treats every name with a dot as fully qualified"
	DNSSearchesMsg = "dnsConfig searches %s never expand a name on Windows: a Windows pod has one DNS suffix, its namespace's"
)

// WindowsDNSConfigIgnored: dnsConfig settings a Windows pod's resolver
// does not apply.
var WindowsDNSConfigIgnored = &rule.Rule{
	ID:       "windows-dns-config-ignored",
	Title:    "Windows pod sets dnsConfig search domains or ndots that Windows does not use",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, on a Windows workload that is not HostProcess, dnsConfig.options ndots (Windows treats every name with a dot as fully qualified, whatever ndots says) and dnsConfig.searches when the dnsPolicy is ClusterFirst (the default): a Windows pod has one DNS suffix, its namespace's, so search domains added to it never expand a name. Searches under dnsPolicy None, where the pod has no namespace suffix, are not reported. Other dnsConfig options and nameservers are not reported; Linux workloads are not checked.",
		Why:  "On Linux the kubelet writes searches and options into the pod's resolv.conf and the resolver expands short names through them; a Windows pod has no resolv.conf, one DNS suffix (its namespace's, kubelet's first search domain) and treats any name with a dot as a fully qualified name. A manifest that relies on extra search domains or a lower ndots to resolve short names works on Linux and fails to resolve them from Windows pods.",
		Fix:  "Use fully qualified names (service.namespace.svc.<cluster domain>, or a host's FQDN) in the Windows workload's configuration and drop the searches and ndots it cannot use.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (Windows treats all names with a . as a FQDN; one DNS suffix, that of the pod's namespace)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Container networking on Windows (DNS is configured through HNS in the container's registry, not a resolv.conf)",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/network/dns/dns.go GetPodDNS, generateSearchesForDNSClusterFirst and appendDNSConfig (under ClusterFirst <namespace>.svc.<cluster domain> comes first and the pod's dnsConfig searches are appended after the cluster's; its options are merged over ndots:5)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if !windowsBound(p) || p.Target.HostProcess || s.DNSConfig == nil {
			return
		}
		at := p.Workload.SpecPath.Child("dnsConfig")
		for i, o := range s.DNSConfig.Options {
			if o.Name != "ndots" {
				continue
			}
			v := ""
			if o.Value != nil {
				v = ":" + *o.Value
			}
			p.Report(rule.Finding{Path: rule.Path(at.Child("options").Index(i)),
				Message: fmt.Sprintf(DNSNdotsMsg, v),
				Hint:    "write fully qualified names in the Windows workload and drop the ndots option"})
		}
		if extra := unusedSearches(s); len(extra) > 0 {
			p.Report(rule.Finding{Path: rule.Path(at.Child("searches")),
				Message: fmt.Sprintf(DNSSearchesMsg, strings.Join(extra, ", ")),
				Hint:    "write fully qualified names in the Windows workload instead of relying on search domains"})
		}
	},
}

// unusedSearches are the dnsConfig search domains a Windows pod under
// ClusterFirst does not use: all of them, after its namespace's suffix.
func unusedSearches(s *corev1.PodSpec) []string {
	if s.DNSPolicy != "" && s.DNSPolicy != corev1.DNSClusterFirst {
		return nil
	}
	quoted := make([]string, 0, len(s.DNSConfig.Searches))
	for _, d := range s.DNSConfig.Searches {
		quoted = append(quoted, fmt.Sprintf("%q", d))
	}
	return quoted
}
