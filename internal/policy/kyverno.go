package policy

import (
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/winkube/winkube/internal/rule"
)

// KyvernoVersion is the Kyverno release the kyverno format is written
// for: the newest on the Go module proxy when it was written. Its CRDs
// (kyverno.io/v1 ClusterPolicy, policies.kyverno.io/v1 MutatingPolicy)
// validate the output in test/e2e/policy.
const KyvernoVersion = "v1.19.1"

// kyvernoKinds are the matched kinds, as Kyverno names them.
var kyvernoKinds = []string{"Pod", "ReplicationController", "PodTemplate", "apps/v1/Deployment", "apps/v1/StatefulSet", "apps/v1/DaemonSet", "apps/v1/ReplicaSet", "batch/v1/Job", "batch/v1/CronJob"}

// kyvernoPolicies are one ClusterPolicy per severity with a validate.cel
// rule carrying the same variables and expressions as the
// ValidatingAdmissionPolicy, and a Kyverno MutatingPolicy with the
// mutating policy's JSON patches: a ClusterPolicy's mutate rules cannot
// use CEL (celPreconditions are for validate.cel only), and the fixes
// depend on the OS the CEL derives. Kyverno's CEL mutations have no
// params, so both carry the cluster profile in a variable instead of
// reading the params ConfigMap: export once per cluster.
func kyvernoPolicies(o *Options, chosen []*rule.Rule, checks map[*rule.Rule][]check) ([]any, error) {
	params, err := Params(o.Cluster, o.Model, "")
	if err != nil {
		return nil, err
	}
	clusterVar := map[string]any{"name": "cluster", "expression": mapLiteral(params.Data)}
	vars := []any{clusterVar}
	for _, v := range workloadVariables() {
		vars = append(vars, map[string]any{"name": v.name, "expression": kyvernoExpr(v.expr)})
	}
	var conds []any
	for _, c := range matchConditions {
		conds = append(conds, map[string]any{"name": c.Name, "expression": c.Expression})
	}
	noWindows := params.Data["hybrid"] != "true" && params.Data["windowsPools"] == ""
	conds = append(conds, map[string]any{"name": "a-rule-may-fire", "expression": mayFireCondition(fmt.Sprint(noWindows))})
	var out []any
	for _, s := range []rule.Severity{rule.Error, rule.Warning, rule.Info} {
		var exprs []any
		for _, r := range chosen {
			for _, c := range checks[r] {
				if checkSeverity(r, c) == s {
					v := validation(r, c)
					exprs = append(exprs, map[string]any{"expression": kyvernoExpr(v.Expression), "messageExpression": kyvernoExpr(v.MessageExpression), "message": v.Message})
				}
			}
		}
		if len(exprs) == 0 {
			continue
		}
		action := "Audit"
		if o.Mode == Enforce && s == rule.Error {
			action = "Enforce"
		}
		name := o.Name + "-" + s.String()
		out = append(out, map[string]any{
			"apiVersion": "kyverno.io/v1",
			"kind":       "ClusterPolicy",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/managed-by": "winkube"}, "annotations": map[string]any{
				"policies.kyverno.io/title":                   "winkube " + s.String() + " rules",
				"policies.kyverno.io/severity":                kyvernoSeverity(s),
				"policies.kyverno.io/category":                "Windows",
				"policies.kyverno.io/subject":                 "Pod",
				"pod-policies.kyverno.io/autogen-controllers": "none",
			}},
			"spec": map[string]any{
				"background":  false,
				"emitWarning": o.Mode != AuditOnly && (s == rule.Warning || o.Mode == WarnOnly),
				"rules": []any{o.kyvernoRule(name, conds, map[string]any{
					"failureAction": action,
					"cel":           map[string]any{"variables": vars, "expressions": exprs},
				})},
			},
		})
	}
	if o.Fixes {
		if mp := kyvernoMutatingPolicy(o, clusterVar); mp != nil {
			out = append(out, mp)
		}
	}
	return out, nil
}

func kyvernoMutatingPolicy(o *Options, clusterVar map[string]any) any {
	objs := mutatingPolicy(o)
	if len(objs) == 0 {
		return nil
	}
	spec := objs[0].(*admissionregistrationv1.MutatingAdmissionPolicy).Spec
	vars := []any{clusterVar}
	for _, v := range spec.Variables {
		vars = append(vars, map[string]any{"name": v.Name, "expression": kyvernoExpr(v.Expression)})
	}
	var conds []any
	for _, c := range spec.MatchConditions {
		conds = append(conds, map[string]any{"name": c.Name, "expression": c.Expression})
	}
	var rules []any
	for _, r := range workloadRules {
		rules = append(rules, map[string]any{"apiGroups": r.APIGroups, "apiVersions": r.APIVersions, "resources": r.Resources, "operations": []string{"CREATE", "UPDATE"}})
	}
	constraints := map[string]any{"resourceRules": rules}
	if sel := o.namespaceSelector(); len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) > 0 {
		constraints["namespaceSelector"] = sel
	}
	return map[string]any{
		"apiVersion": "policies.kyverno.io/v1",
		"kind":       "MutatingPolicy",
		"metadata":   map[string]any{"name": o.Name + "-fix", "labels": map[string]any{"app.kubernetes.io/managed-by": "winkube"}},
		"spec": map[string]any{
			"matchConstraints": constraints,
			"matchConditions":  conds,
			"variables":        vars,
			"mutations": []any{map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{
				"expression": spec.Mutations[0].JSONPatch.Expression}}},
			"failurePolicy":      "Fail",
			"reinvocationPolicy": "Never",
		},
	}
}

func (o *Options) kyvernoRule(name string, conds []any, validate map[string]any) map[string]any {
	r := map[string]any{"name": name, "match": o.kyvernoMatch(), "celPreconditions": conds, "validate": validate}
	if len(o.ExcludeNamespaces) > 0 {
		r["exclude"] = map[string]any{"any": []any{map[string]any{"resources": map[string]any{"namespaces": o.ExcludeNamespaces}}}}
	}
	return r
}

func (o *Options) kyvernoMatch() map[string]any {
	res := map[string]any{"kinds": kyvernoKinds, "operations": []string{"CREATE", "UPDATE"}}
	if o.NamespaceSelector != nil {
		res["namespaceSelector"] = o.NamespaceSelector
	}
	return map[string]any{"any": []any{map[string]any{"resources": res}}}
}

func kyvernoSeverity(s rule.Severity) string {
	switch s {
	case rule.Error:
		return "high"
	case rule.Warning:
		return "medium"
	}
	return "low"
}

// kyvernoExpr reads the cluster profile from variables.cluster instead of
// the params ConfigMap.
func kyvernoExpr(e string) string { return strings.ReplaceAll(e, "params.data.", "variables.cluster.") }

// mapLiteral renders string data as a CEL map literal.
func mapLiteral(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = celString(k) + ": " + celString(data[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
