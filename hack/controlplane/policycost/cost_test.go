package policycost

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
)

// BenchmarkCost attributes the Windows pod's CEL time to each variable,
// match condition, validation and message expression of each policy. The
// API server times each expression of one evaluation (EvaluationResult
// Elapsed, k8s.io/apiserver v0.36.3 pkg/admission/plugin/cel/activation.go),
// and variables are evaluated lazily and cached within one evaluation
// (composition.go), so a policy whose validations are first one probe per
// variable, in declaration order (size([variables.v]) == 1), then the
// policy's own expressions, times each variable alone (its dependencies
// are cached by the probes before it) and each expression without the
// variables it reads. Message expressions are timed the same way, as
// validations of size(message) >= 0. Which variables an evaluation needs
// is read from the expressions' text (variables.<name>, transitively).
//
// Wall time per expression, summed over b.N admissions: on a loaded
// machine compare rows within one run.
func BenchmarkCost(b *testing.B) {
	e := load(b)
	pod := windowsPod(b)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}
	attr := admission.NewAttributesRecord(pod, nil, gvk, "bench", "bench", gvr, "", admission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "bench"})
	va := &admission.VersionedAttributes{Attributes: attr, VersionedKind: gvk, VersionedObject: pod}

	type probed struct {
		names []string // one per validation of the probe policy
		v     validating.Validator
		total []time.Duration
	}
	// probe compiles p with the validations: probes of every variable
	// (size([variables.v]) == 1) before the expressions exprs, or after
	// them (first false). Before, each probe times its variable alone and
	// each expression its own work; after, each expression's time is
	// what it adds to the evaluation, the variables it needs included,
	// and a probe is fast when the expressions evaluated its variable.
	// The first validation is true, an expression that reads nothing.
	probe := func(p *admissionregistrationv1.ValidatingAdmissionPolicy, names, exprs []string, first bool) *probed {
		q := p.DeepCopy()
		q.Spec.MatchConditions = nil
		q.Spec.AuditAnnotations = nil
		all := []string{"true"}
		q.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "true"}}
		var vn []string
		var vx []admissionregistrationv1.Validation
		for _, v := range p.Spec.Variables {
			vn = append(vn, "variable "+v.Name)
			vx = append(vx, admissionregistrationv1.Validation{Expression: "size([variables." + v.Name + "]) == 1"})
		}
		var en []string
		var ex []admissionregistrationv1.Validation
		for i, x := range exprs {
			en = append(en, names[i])
			ex = append(ex, admissionregistrationv1.Validation{Expression: x})
		}
		if first {
			all = append(append(all, vn...), en...)
			q.Spec.Validations = append(append(q.Spec.Validations, vx...), ex...)
		} else {
			all = append(append(all, en...), vn...)
			q.Spec.Validations = append(append(q.Spec.Validations, ex...), vx...)
		}
		return &probed{names: all, v: compile(b, q), total: make([]time.Duration, len(all))}
	}
	type policyProbes struct {
		p                        *admissionregistrationv1.ValidatingAdmissionPolicy
		match                    *probed
		checks, msgs             *probed // variables first
		checksInOrder, msgsOrder *probed // variables after
		ids                      []string
	}
	var pps []policyProbes
	for _, p := range e.policies {
		var mn, mx, cn, cx, mm []string
		for _, m := range p.Spec.MatchConditions {
			mn, mx = append(mn, "match "+m.Name), append(mx, m.Expression)
		}
		var ids []string
		for _, v := range p.Spec.Validations {
			id, _, _ := strings.Cut(v.Message, ":")
			ids = append(ids, id)
			cn, cx = append(cn, id), append(cx, v.Expression)
			if v.MessageExpression != "" {
				mm = append(mm, "size("+v.MessageExpression+") >= 0")
			} else {
				mm = append(mm, "true")
			}
		}
		pps = append(pps, policyProbes{p: p, match: probe(p, mn, mx, false), ids: ids,
			checks: probe(p, cn, cx, true), msgs: probe(p, cn, mm, true),
			checksInOrder: probe(p, cn, cx, false), msgsOrder: probe(p, cn, mm, false)})
	}
	run := func(pr *probed) {
		for i, d := range pr.v.Validate(context.Background(), gvr, va, e.params, ns, celconfig.RuntimeCELCostBudget, nil).Decisions {
			if d.Action != validating.ActionAdmit {
				b.Fatalf("probe %s: %s %s", pr.names[i], d.Action, d.Message)
			}
			pr.total[i] += d.Elapsed
		}
	}
	n := 0
	for b.Loop() {
		for _, pp := range pps {
			for _, pr := range []*probed{pp.match, pp.checks, pp.msgs, pp.checksInOrder, pp.msgsOrder} {
				run(pr)
			}
		}
		n++
	}
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }

	var out strings.Builder
	varCost := map[string]float64{}
	varUsers := map[string][]string{}
	for _, pp := range pps {
		p := pp.p
		nv, nc := len(p.Spec.Variables), len(pp.ids)
		bare := min(us(pp.checks.total[0]), us(pp.msgs.total[0]))
		for i, v := range p.Spec.Variables {
			// Both probe policies time each variable; take the smaller.
			varCost[v.Name] = min(us(pp.checks.total[1+i]), us(pp.msgs.total[1+i]))
		}
		// A variable the expressions evaluated costs its probe (after
		// them) little more than a bare probe; one they did not, its
		// whole cost again.
		evaluated := func(pr *probed) (names []string, sum float64) {
			for i, v := range p.Spec.Variables {
				before := varCost[v.Name]
				after := us(pr.total[1+nc+i])
				if after < (before+bare)/2 {
					names = append(names, v.Name)
					sum += before
				}
			}
			return names, sum
		}
		total := func(pr *probed, from int) (t float64) {
			for i := range nc {
				t += us(pr.total[from+i])
			}
			return t
		}
		matchTotal := 0.0
		for i := range p.Spec.MatchConditions {
			matchTotal += us(pp.match.total[1+i])
		}
		cv, cs := evaluated(pp.checksInOrder)
		mv, ms := evaluated(pp.msgsOrder)
		for _, name := range cv {
			varUsers[name] = append(varUsers[name], p.Name+" validations")
		}
		for _, name := range mv {
			varUsers[name] = append(varUsers[name], p.Name+" messages")
		}
		fmt.Fprintf(&out, "\n### %s (%d variables, %d validations; an expression reading nothing: %.1f µs)\n\n", p.Name, nv, nc, bare)
		fmt.Fprintf(&out, "| evaluation | µs | variables evaluated | their µs alone | expressions alone µs |\n|---|---|---|---|---|\n")
		fmt.Fprintf(&out, "| match conditions | %.0f | 0 | 0 | %.0f |\n", matchTotal, matchTotal)
		fmt.Fprintf(&out, "| validations | %.0f | %d | %.0f | %.0f |\n", total(pp.checksInOrder, 1), len(cv), cs, total(pp.checks, 1+nv))
		fmt.Fprintf(&out, "| message expressions | %.0f | %d | %.0f | %.0f |\n\n", total(pp.msgsOrder, 1), len(mv), ms, total(pp.msgs, 1+nv))
		fmt.Fprintf(&out, "| check | validation µs (in order) | alone | message µs (in order) | alone |\n|---|---|---|---|---|\n")
		for i, id := range pp.ids {
			fmt.Fprintf(&out, "| %s | %.0f | %.0f | %.0f | %.0f |\n", id, us(pp.checksInOrder.total[1+i]), us(pp.checks.total[1+nv+i]), us(pp.msgsOrder.total[1+i]), us(pp.msgs.total[1+nv+i]))
		}
	}
	type vc struct {
		name string
		us   float64
	}
	var vcs []vc
	for n, c := range varCost {
		vcs = append(vcs, vc{n, c})
	}
	slices.SortFunc(vcs, func(a, b vc) int {
		if a.us != b.us {
			if a.us > b.us {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	fmt.Fprintf(&out, "\n### variables, µs each (its dependencies cached), and the evaluations that need it\n\n| variable | µs | evaluated by |\n|---|---|---|\n")
	for _, v := range vcs {
		fmt.Fprintf(&out, "| %s | %.1f | %s |\n", v.name, v.us, strings.Join(varUsers[v.name], ", "))
	}
	// b.Log truncates a benchmark's long output.
	fmt.Fprint(os.Stdout, out.String())
}
