package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// subdomainKinds are kinds whose names the API server validates as RFC
// 1123 subdomains (GMSACredentialSpec: custom resources default to it).
var subdomainKinds = []string{"Pod", "ReplicationController", "PersistentVolume", "PersistentVolumeClaim", "PodTemplate", "ConfigMap", "Secret", "ServiceAccount",
	"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "RuntimeClass", "StorageClass", "GMSACredentialSpec"}

// InvalidObjectName: metadata.name values the API server rejects.
var InvalidObjectName = &rule.Rule{
	ID:       "invalid-object-name",
	Title:    "Object name is rejected by the API server",
	Severity: rule.Error,
	Category: rule.API,
	Kinds:    append(append([]string(nil), subdomainKinds...), "Service", "Namespace"),
	Doc: rule.Doc{
		What:    "Reports metadata.name values the API server rejects, in its words: names that are not lowercase RFC 1123 subdomains (Pods, workloads, ConfigMaps, Secrets, RuntimeClasses, GMSACredentialSpecs, whose CRD uses the default name validation), Service names that are not RFC 1035 labels and Namespace names that are not RFC 1123 labels. gMSA samples often name the credential spec after the account (WebApp1), which the API server refuses.",
		Why:     "kubectl apply fails for the object, and with it whatever references it: a pod naming a GMSACredentialSpec that could not be created is refused by the gMSA webhook.",
		Fix:     "Use lower case letters, digits, '-' and '.' (Services and Namespaces: no '.'), starting and ending with a letter or digit, and rename every reference.",
		Sources: []string{"k8s.io/apimachinery v0.36 pkg/util/validation (IsDNS1123Subdomain, IsDNS1035Label, IsDNS1123Label)", "k8s.io/kubernetes v1.36.3 pkg/apis/core/validation ValidateObjectMeta"},
	},
	Object: func(p *rule.Pass) {
		name := p.Object.Name
		if name == "" || strings.Contains(name, "$") {
			return // generateName, or a placeholder the loader reports
		}
		check := validation.IsDNS1123Subdomain
		switch p.Object.Kind {
		case "Service":
			check = validation.IsDNS1035Label
		case "Namespace":
			check = validation.IsDNS1123Label
		}
		if msgs := check(name); len(msgs) > 0 {
			err := field.Invalid(field.NewPath("metadata", "name"), name, strings.Join(msgs, "; "))
			p.Report(rule.Finding{Path: "metadata.name", Message: clipMessage(err.Error()),
				Hint: "use lower case letters, digits and '-' (and '.' except for Services and Namespaces), and rename every reference to it"})
		}
	},
}

// clipMessage keeps the API server's message but drops its trailing
// regular expression, which the rule's documentation carries.
func clipMessage(s string) string {
	if i := strings.Index(s, " (e.g. "); i > 0 {
		return s[:i]
	}
	return s
}

// ImplausibleQuantity: quantities that parse but cannot be meant.
var ImplausibleQuantity = &rule.Rule{
	ID:       "implausible-quantity",
	Title:    "Memory quantity is implausibly small",
	Severity: rule.Error,
	Category: rule.Resources,
	Doc: rule.Doc{
		What:    "Reports memory requests and limits under 1Mi, which no container can run in: most often `memory: 800m`, where m means milli, so 0.8 bytes. It names the quantity the suffix probably meant.",
		Why:     "The API server accepts the value, so the mistake shows only at run time: a memory limit of a few bytes makes every container start fail, and a request of a few bytes reserves nothing, so the scheduler overcommits the Windows node, which has no OOM killer to fall back on.",
		Fix:     "Write the binary suffix: 800Mi (mebibytes) or 800M (megabytes).",
		Sources: []string{"k8s.io/apimachinery v0.36 pkg/api/resource (m is the milli suffix)", "https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#memory-management (Windows has no OOM killer: limits are the only protection)"},
	},
	Workload: func(p *rule.Pass) {
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			for _, kind := range []struct {
				name string
				list corev1.ResourceList
			}{{"requests", c.Resources.Requests}, {"limits", c.Resources.Limits}} {
				q, ok := kind.list[corev1.ResourceMemory]
				if !ok || q.IsZero() || q.Cmp(oneMi) >= 0 {
					continue
				}
				s := q.String()
				meant := "a quantity with Mi or Gi"
				if strings.HasSuffix(s, "m") {
					meant = strings.TrimSuffix(s, "m") + "Mi"
				}
				p.Report(rule.Finding{Path: rule.Path(cp.Child("resources", kind.name, "memory")),
					Message: fmt.Sprintf("memory %s %s is %s bytes: no container runs in less than 1Mi; did you mean %s?", kind.name, s, bytesOf(s, q.AsApproximateFloat64()), meant),
					Hint:    "m is the milli suffix (thousandths); memory takes Ki, Mi, Gi or K, M, G"})
			}
		})
	},
}

// bytesOf writes a fraction of a byte count without trailing zeros.
func bytesOf(_ string, f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

var oneMi = resource.MustParse("1Mi")
