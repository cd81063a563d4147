package rules

import (
	"fmt"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// typedKinds are the kinds winkube decodes, whose schema it knows.
var typedKinds = []string{"Pod", "ReplicationController", "Service", "Node", "PersistentVolume", "PersistentVolumeClaim", "PodTemplate",
	"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "RuntimeClass", "StorageClass"}

// UnknownField: fields kubectl's strict field validation rejects.
var UnknownField = &rule.Rule{
	ID:       "unknown-field",
	Title:    "Field is not in the object's schema",
	Severity: rule.Error,
	Category: rule.API,
	Kinds:    typedKinds,
	Doc: rule.Doc{
		What: "Reports fields that the kind's schema does not have, misspelled or wrongly cased ones included (tolerations[0].Effect for effect), for the built-in kinds winkube decodes at their served versions, in the API server's words: `strict decoding error: unknown field \"spec.template.spec.tolerations[0].Effect\"`.",
		Why:  "kubectl apply and create validate fields strictly by default (--validate=strict, server-side field validation since 1.27), so the whole object is refused. Clients that do not validate strictly let the API server drop the field silently: a toleration whose Effect is dropped tolerates every effect, a misspelled resources block sets no limits.",
		Fix:  "Spell the field as the schema does (the hint suggests the closest known name), or remove it.",
		Sources: []string{
			"k8s.io/apimachinery v0.36 pkg/runtime/serializer/json (strict decoding error: unknown field)",
			"k8s.io/kubectl v0.36 pkg/cmd/util (--validate=strict is the default)",
		},
	},
	Object: func(p *rule.Pass) {
		for _, u := range manifest.UnknownFields(p.Object) {
			p.Report(rule.Finding{Path: u.Path, Line: u.Line,
				Message: fmt.Sprintf("strict decoding error: unknown field %q", u.Path),
				Hint:    u.Hint})
		}
	},
}

// RemovedAPIVersion: API versions the chosen release no longer serves.
var RemovedAPIVersion = &rule.Rule{
	ID:       "removed-api-version",
	Title:    "API version is no longer served",
	Severity: rule.Error,
	Category: rule.API,
	Kinds:    winsupport.RemovedAPIKinds(),
	Doc: rule.Doc{
		What:    "Reports objects whose apiVersion the selected Kubernetes release no longer serves for their kind (extensions/v1beta1 Deployments and DaemonSets, batch/v1beta1 CronJobs, node.k8s.io/v1beta1 RuntimeClasses, ...), in kubectl's words: `no matches for kind \"Deployment\" in version \"extensions/v1beta1\"`.",
		Why:     "Old Windows samples predate the API removals of 1.16, 1.22 and 1.25; applying them fails before any Windows rule matters.",
		Fix:     "Move the object to the served version the hint names; for apps/v1 add the spec.selector the older versions defaulted.",
		Sources: []string{"kubernetes.io/docs/reference/using-api/deprecation-guide", "k8s.io/apimachinery v0.36 pkg/api/meta (NoKindMatchError: no matches for kind)"},
	},
	Object: func(p *rule.Pass) {
		r, ok := p.Model.RemovedAPI(p.Object.APIVersion, p.Object.Kind)
		if !ok {
			return
		}
		p.Report(rule.Finding{Path: "apiVersion",
			Message: fmt.Sprintf("no matches for kind %q in version %q", p.Object.Kind, p.Object.APIVersion),
			Hint:    fmt.Sprintf("Kubernetes %s no longer serves it (removed in %s); use %s", p.Model.V, r.Removed, r.Use)})
	},
}
