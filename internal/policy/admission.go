package policy

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/internal/rule"
)

// workloadRules are the kinds with a pod template that the policies match:
// the kinds internal/manifest reads a pod spec from.
var workloadRules = []admissionregistrationv1.NamedRuleWithOperations{
	namedRule("", "pods", "replicationcontrollers", "podtemplates"),
	namedRule("apps", "deployments", "statefulsets", "daemonsets", "replicasets"),
	namedRule("batch", "jobs", "cronjobs"),
}

func namedRule(group string, resources ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources,
			Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// matchConditions skip what the webhook skips: pods a checked controller
// owns (their template was judged), and workloads that name a RuntimeClass,
// whose OS and tolerations depend on an object a policy cannot read.
var matchConditions = []admissionregistrationv1.MatchCondition{
	{Name: "not-a-controlled-pod", Expression: `!(object.kind == 'Pod' && object.metadata.?ownerReferences.orValue([]).exists(r, r.?controller.orValue(false) && ` +
		`((r.kind in ['ReplicaSet', 'StatefulSet', 'DaemonSet'] && r.apiVersion == 'apps/v1') || (r.kind == 'Job' && r.apiVersion == 'batch/v1'))))`},
	{Name: "no-runtime-class", Expression: `(object.kind == 'Pod' ? object.spec : object.kind == 'PodTemplate' ? object.template.spec : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec : object.spec.template.spec).?runtimeClassName.orValue('') == ''`},
	{Name: "not-being-deleted", Expression: `!has(object.metadata.deletionTimestamp)`},
}

// validatingConditions are matchConditions and the skip of workloads no
// exported rule can fire on (mayFireCondition, over the params), as one
// condition: the API server evaluates each match condition as a program
// of its own, and a conjunction decides as the list does (a false
// condition skips the policy whatever the others' errors,
// k8s.io/apiserver v0.36.3 pkg/admission/plugin/webhook/matchconditions/
// matcher.go Match; CEL's && is false when either side is, an error on
// the other side included).
func validatingConditions() []admissionregistrationv1.MatchCondition {
	var all []string
	for _, c := range matchConditions {
		all = append(all, "("+c.Expression+")")
	}
	all = append(all, mayFireCondition(`(params.data.hybrid != 'true' && params.data.windowsPools == '')`))
	return []admissionregistrationv1.MatchCondition{{Name: "a-rule-may-fire", Expression: strings.Join(all, " && ")}}
}

var paramKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}

func celVariables() []admissionregistrationv1.Variable {
	var out []admissionregistrationv1.Variable
	for _, v := range renderedVariables(workloadVariables()) {
		out = append(out, admissionregistrationv1.Variable{Name: v.name, Expression: v.expr})
	}
	return out
}

// readVariables are the variables the validations read, directly or
// through other variables, in their order. The API server builds every
// variable of a policy into each evaluation's composition context
// (k8s.io/apiserver v0.36.3 pkg/admission/plugin/cel/composition.go
// Variables: one map entry and accessor per variable, four evaluations
// per policy), read or not.
func readVariables(all []admissionregistrationv1.Variable, vs []admissionregistrationv1.Validation) []admissionregistrationv1.Variable {
	read := map[string]bool{}
	mark := func(expr string) {
		for _, m := range variableRef.FindAllStringSubmatch(expr, -1) {
			read[m[1]] = true
		}
	}
	for _, v := range vs {
		mark(v.Expression)
		mark(v.MessageExpression)
	}
	// A variable reads only earlier ones: walk back once.
	for i := len(all) - 1; i >= 0; i-- {
		if read[all[i].Name] {
			mark(all[i].Expression)
		}
	}
	var out []admissionregistrationv1.Variable
	for _, v := range all {
		if read[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// validation is the CEL of one check: true means admitted. The API server
// evaluates every messageExpression of a policy on every request, whether
// its validation failed or not (k8s.io/apiserver v0.36.3
// pkg/admission/plugin/policy/validating/validator.go Validate), so the
// message builds its detail only when the check fires: the condition is
// cheaper than most details, and most requests fire nothing. For the same
// reason the ignore annotations are read only when the check fires (||
// is commutative in CEL, errors included: true || error is true). Inlined
// variables are rendered in place (cost.go).
func validation(r *rule.Rule, c check) admissionregistrationv1.Validation {
	id := celString(r.ID)
	expr := renderInlined(c.expr)
	return admissionregistrationv1.Validation{
		Expression:        fmt.Sprintf(`!(%s) || %s in variables.ignored || 'all' in variables.ignored`, expr, id),
		MessageExpression: fmt.Sprintf(`!(%s) ? '' : '%s: ' + %s`, expr, r.ID, renderInlined(c.detail)),
		Message:           r.ID + ": " + r.Title,
		Reason:            ptr.To(metav1.StatusReasonForbidden),
	}
}

// validatingPolicies returns one policy and binding per severity that has
// checks, so that each binding's validationActions follow the severity.
func validatingPolicies(o *Options, chosen []*rule.Rule, checks map[*rule.Rule][]check) []any {
	var out []any
	for _, s := range []rule.Severity{rule.Error, rule.Warning, rule.Info} {
		var vs []admissionregistrationv1.Validation
		for _, r := range chosen {
			for _, c := range checks[r] {
				if checkSeverity(r, c) == s {
					vs = append(vs, validation(r, c))
				}
			}
		}
		if len(vs) == 0 {
			continue
		}
		name := o.Name + "-" + s.String()
		out = append(out, &admissionregistrationv1.ValidatingAdmissionPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
			ObjectMeta: o.meta(name),
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				ParamKind:        paramKind,
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: workloadRules},
				MatchConditions:  validatingConditions(),
				Variables:        readVariables(celVariables(), vs),
				Validations:      vs,
				FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			},
		}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
			ObjectMeta: o.meta(name),
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        name,
				ParamRef:          o.paramRef(),
				MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: o.namespaceSelector()},
				ValidationActions: o.actions(s),
			},
		})
	}
	return out
}

func (o *Options) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: map[string]string{"app.kubernetes.io/managed-by": "winkube"}}
}

func (o *Options) paramRef() *admissionregistrationv1.ParamRef {
	return &admissionregistrationv1.ParamRef{Name: ParamsName, Namespace: o.ParamsNamespace,
		ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}
}

// actions maps a severity to validationActions under the mode.
func (o *Options) actions(s rule.Severity) []admissionregistrationv1.ValidationAction {
	switch {
	case o.Mode == AuditOnly || (o.Mode == Enforce && s == rule.Info):
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}
	case o.Mode == WarnOnly || s == rule.Warning:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
	}
	return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
}

// namespaceSelector is the user's selector with the excluded namespaces
// added as a NotIn on the namespace name label.
func (o *Options) namespaceSelector() *metav1.LabelSelector {
	sel := &metav1.LabelSelector{}
	if o.NamespaceSelector != nil {
		sel = o.NamespaceSelector.DeepCopy()
	}
	if len(o.ExcludeNamespaces) > 0 {
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: o.ExcludeNamespaces})
	}
	return sel
}
