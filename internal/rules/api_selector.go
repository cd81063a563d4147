package rules

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
)

// SelectorTemplateMismatch: a controller whose selector does not select
// its own pods.
var SelectorTemplateMismatch = &rule.Rule{
	ID:       "selector-template-mismatch",
	Title:    "Selector does not match the pod template's labels",
	Severity: rule.Error,
	Category: rule.API,
	Kinds:    []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"},
	Doc: rule.Doc{
		What: "Reports Deployments, ReplicaSets, StatefulSets and DaemonSets (apps/v1) whose non-empty spec.selector does not match spec.template.metadata.labels, with the API server's error: spec.template.metadata.labels: Invalid value: {...}: `selector` does not match template `labels`.",
		Why:  "A controller owns the pods its selector matches; the API server refuses one whose own template's pods would not match, so nothing of the manifest is created. It is common in Windows manifests edited by hand from a Linux original, where a label was renamed in one place (app: web-win in the template, app: web in the selector).",
		Fix:  "Make spec.selector.matchLabels a subset of spec.template.metadata.labels. The selector is immutable after creation, so change the template's labels rather than the selector of a live object.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/apps/validation/validation.go ValidatePodTemplateSpecForReplicaSet, ValidateStatefulSetSpec, ValidateDaemonSetSpec",
		},
	},
	Object: func(p *rule.Pass) {
		sel, tmplLabels := controllerSelector(p.Object.Typed)
		if sel == nil || len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			return // the API server's other selector errors are not predicted here
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Matches(labels.Set(tmplLabels)) {
			return
		}
		e := field.Invalid(field.NewPath("spec", "template", "metadata", "labels"), tmplLabels, "`selector` does not match template `labels`")
		p.Report(rule.Finding{Path: e.Field, Message: e.Error(),
			Hint: "make spec.selector.matchLabels a subset of the template's labels (the selector is immutable once created)"})
	},
}

// controllerSelector is the selector and template labels of an apps/v1
// controller.
func controllerSelector(obj any) (*metav1.LabelSelector, map[string]string) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return o.Spec.Selector, o.Spec.Template.Labels
	case *appsv1.ReplicaSet:
		return o.Spec.Selector, o.Spec.Template.Labels
	case *appsv1.StatefulSet:
		return o.Spec.Selector, o.Spec.Template.Labels
	case *appsv1.DaemonSet:
		return o.Spec.Selector, o.Spec.Template.Labels
	}
	return nil, nil
}
