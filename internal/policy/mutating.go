package policy

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/internal/winsupport"
)

// FixRules are the rules whose safe fixes the mutating policy applies: the
// OS nodeSelector, the Windows toleration and spec.os.name, which the
// webhook applies too. Their unsafe cases (spec.os.name while Linux-only
// fields remain, a toleration that differs from the taint only in case)
// are left alone, as the webhook leaves them.
var FixRules = []string{"missing-os-pin", "toleration-without-selector", "linux-daemonset-unpinned", "missing-windows-toleration", "missing-spec-os"}

// fixVariables decide, from the object as submitted, what the webhook's
// rounds of safe fixes end with.
func fixVariables(o *Options, m winsupport.Model) []variable {
	on := func(id string) string {
		if !o.fixEnabled(id) {
			return "false"
		}
		return `!(` + celString(id) + ` in variables.ignored || 'all' in variables.ignored)`
	}
	reachableTainted := `variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && size(variables.poolTaints[i]) > 0)`
	// A taint is left to the user when a toleration matches it but for
	// letter case (rules.caseOnlyMismatch).
	caseOnly := caseOnlyExpr("x")
	// An earlier added toleration (key and effect equal, value equal or
	// Exists) already tolerates the taint.
	earlier := `variables.fixTaints.exists(j, y, j < i && y[0] == x[0] && y[2] == x[2] && (y[1] == '' || y[1] == x[1]))`
	vs := []variable{
		{"specPath", `object.kind == 'Pod' ? '/spec' : object.kind == 'PodTemplate' ? '/template/spec' : object.kind == 'CronJob' ? '/spec/jobTemplate/spec/template/spec' : '/spec/template/spec'`},
		{"pinTo", `((` + on("missing-os-pin") + ` && variables.hybrid && !variables.pinned && (variables.schedLinux || variables.schedWindows) && !(variables.isDaemonSet && variables.os != 'windows')) || ` +
			`(` + on("toleration-without-selector") + ` && !variables.isDaemonSet && variables.hybrid && variables.schedLinux && variables.schedWindows && ` + reachableTainted + `)) && variables.os != '' ? variables.os : ` +
			on("linux-daemonset-unpinned") + ` && variables.isDaemonSet && variables.os != 'windows' && variables.schedWindows && variables.winPools.exists(i, p, variables.buildOK[i]) ? 'linux' : ''`},
		{"fixTaints", `(` + on("missing-windows-toleration") + ` && ((variables.pinned && variables.os == 'windows') || variables.pinTo == 'windows')) ? variables.winPools.transformList(i, p, variables.buildOK[i], variables.untolerated[i]).flatten().filter(x, ` + namedTaintChecked("x") + ` && !` + caseOnly + `) : []`},
		{"addTolerations", `variables.fixTaints.transformList(i, x, !` + earlier + `, x[1] == '' ? {'key': x[0], 'operator': 'Exists', 'effect': x[2]} : {'key': x[0], 'operator': 'Equal', 'value': x[1], 'effect': x[2]})`},
		{"setOS", "false"},
	}
	if m.Supports(winsupport.FeaturePodOS) {
		vs[len(vs)-1].expr = on("missing-spec-os") + ` && variables.os == 'windows' && !has(variables.spec.os) && !` + forbiddenExpr(m)
	}
	return vs
}

func (o *Options) fixEnabled(id string) bool {
	for _, r := range o.Rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// mutations are JSON patches, so that the tolerations list (atomic for
// server-side apply) is appended to rather than replaced.
var mutations = []admissionregistrationv1.Mutation{
	{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: strings.Join([]string{
		`(variables.pinTo == '' ? [] : has(variables.spec.nodeSelector) ?`,
		`  [JSONPatch{op: 'add', path: variables.specPath + '/nodeSelector/kubernetes.io~1os', value: variables.pinTo}] :`,
		`  [JSONPatch{op: 'add', path: variables.specPath + '/nodeSelector', value: {'kubernetes.io/os': variables.pinTo}}]) +`,
		`(size(variables.addTolerations) == 0 ? [] : has(variables.spec.tolerations) ?`,
		`  variables.addTolerations.map(t, JSONPatch{op: 'add', path: variables.specPath + '/tolerations/-', value: t}) :`,
		`  [JSONPatch{op: 'add', path: variables.specPath + '/tolerations', value: variables.addTolerations}]) +`,
		`(variables.setOS ? [JSONPatch{op: 'add', path: variables.specPath + '/os', value: {'name': 'windows'}}] : [])`,
	}, "\n")}},
}

func mutatingPolicy(o *Options) []any {
	var fixes bool
	for _, id := range FixRules {
		fixes = fixes || o.fixEnabled(id)
	}
	if !fixes {
		return nil
	}
	var vars []admissionregistrationv1.Variable
	for _, v := range append(workloadVariables(), fixVariables(o, o.Model)...) {
		vars = append(vars, admissionregistrationv1.Variable{Name: v.name, Expression: v.expr})
	}
	conds := append([]admissionregistrationv1.MatchCondition{
		{Name: "not-a-pod-update", Expression: `!(object.kind == 'Pod' && request.operation == 'UPDATE')`},
	}, matchConditions...)
	name := o.Name + "-fix"
	return []any{&admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: o.meta(name),
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			ParamKind:          paramKind,
			MatchConstraints:   &admissionregistrationv1.MatchResources{ResourceRules: workloadRules},
			MatchConditions:    conds,
			Variables:          vars,
			Mutations:          mutations,
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: o.meta(name),
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName:     name,
			ParamRef:       o.paramRef(),
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: o.namespaceSelector()},
		},
	}}
}
