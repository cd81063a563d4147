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
		What: "Reports, in the data of a ConfigMap that a Windows workload of the same namespace reads (as a volume, a projected volume, envFrom or configMapKeyRef), host names of the form service.namespace.svc and service.namespace where the input holds that Service, as windows-dns-partial-name does for the workload's own fields. ConfigMaps read only by Linux workloads are not checked. No fix is offered: the values are often block scalars of another program's configuration.",
		Why:  "A Windows pod has one DNS suffix, its namespace's, and treats every name with a dot as fully qualified, so backend.shop and backend.shop.svc do not resolve from it while they do from Linux pods reading the same ConfigMap.",
		Fix:  "Write service.namespace.svc.<cluster domain> in the ConfigMap (the message gives the name with the profile's clusterDomain).",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (Windows treats all names with a . as a FQDN; one DNS suffix, that of the pod's namespace)",
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
			readers := configReaders(p.Workloads, obj)
			if len(readers) == 0 {
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
				var named []string
				for _, n := range svcname.PartialNames(cm.Data[k], domain) {
					if n.Always || services[rule.ServiceKey(n.Namespace, n.Service)] {
						line := strings.Count(cm.Data[k][:n.Start], "\n") + 1
						named = append(named, fmt.Sprintf("%q on line %d (use %s)", n.Name, line, n.FQDN))
					}
				}
				if len(named) == 0 {
					continue
				}
				p.Report(obj, rule.Finding{
					Path:    rule.Path(field.NewPath("data").Key(k)),
					Message: fmt.Sprintf("key %s, read by Windows pods of %s, names %s: a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix, so the name does not resolve", k, svcRefs(readers), strings.Join(named, ", ")),
					Hint:    "write the fully qualified Service name with the cluster domain " + domain,
				})
			}
		}
	},
}

// configReaders are the Windows workloads in the ConfigMap's namespace
// that read it.
func configReaders(ws []rule.Summary, obj *manifest.Object) []rule.Summary {
	ns := svcNamespace(obj.Namespace)
	var out []rule.Summary
	for _, w := range ws {
		if w.OS != target.Windows || svcNamespace(w.Namespace) != ns {
			continue
		}
		for _, name := range w.ConfigMaps {
			if name == obj.Name {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
