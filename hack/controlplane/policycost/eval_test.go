// Package policycost measures, in process and without HTTP, what the
// ValidatingAdmissionPolicies of a winkube export cost one admission:
// each policy compiled as k8s.io/apiserver v0.36.3 compiles it
// (pkg/admission/plugin/policy/validating/plugin.go compilePolicy) and
// evaluated with validating.Validator.Validate, the call the dispatcher
// makes per matched binding (match conditions, validations, message
// expressions, audit annotations: one CEL activation each). It lives in
// this build-only module because k8s.io/apiserver is a dependency here
// and not of the product.
//
//	go run ./cmd/winkube policy export --cluster reference > /tmp/vap.yaml
//	cd hack/controlplane && go test ./policycost -bench . -args -policies /tmp/vap.yaml
//
// BenchmarkValidate reports CPU time and allocations per admission;
// BenchmarkCost prints, per policy, what each variable, match condition,
// validation and message expression takes (cost_test.go).
package policycost

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
)

var policiesFile = flag.String("policies", "", "a winkube policy export (admission-policy format)")

// compile mirrors compilePolicy of k8s.io/apiserver v0.36.3.
func compile(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	opt := cel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	msgOpt := cel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil}
	c, err := cel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	var vars []cel.NamedExpressionAccessor
	for i := range p.Spec.Variables {
		vars = append(vars, &validating.Variable{Name: p.Spec.Variables[i].Name, Expression: p.Spec.Variables[i].Expression})
	}
	c.CompileAndStoreVariables(vars, opt, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(p.Spec.MatchConditions) > 0 {
		var mcs []cel.ExpressionAccessor
		for i := range p.Spec.MatchConditions {
			mcs = append(mcs, (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i]))
		}
		matcher = matchconditions.NewMatcher(c.CompileCondition(mcs, opt, environment.StoredExpressions), p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	vs := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	ms := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	for i, v := range p.Spec.Validations {
		vs[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			ms[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	as := make([]cel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, a := range p.Spec.AuditAnnotations {
		as[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return validating.NewValidator(c.CompileCondition(vs, opt, environment.StoredExpressions), matcher,
		c.CompileCondition(as, opt, environment.StoredExpressions), c.CompileCondition(ms, msgOpt, environment.StoredExpressions), p.Spec.FailurePolicy, nil)
}

type export struct {
	names      []string
	policies   []*admissionregistrationv1.ValidatingAdmissionPolicy
	validators []validating.Validator
	params     *corev1.ConfigMap
}

func load(t testing.TB) export {
	if *policiesFile == "" {
		t.Skip("no -policies file")
	}
	data, err := os.ReadFile(*policiesFile)
	if err != nil {
		t.Fatal(err)
	}
	var e export
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		switch u.GetKind() {
		case "ValidatingAdmissionPolicy":
			var p admissionregistrationv1.ValidatingAdmissionPolicy
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
				t.Fatal(err)
			}
			e.names = append(e.names, p.Name)
			e.policies = append(e.policies, &p)
			e.validators = append(e.validators, compile(t, &p))
		case "ConfigMap":
			e.params = &corev1.ConfigMap{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, e.params); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(e.validators) == 0 || e.params == nil {
		t.Fatalf("%s: no ValidatingAdmissionPolicy or params ConfigMap", *policiesFile)
	}
	return e
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var podsFile = flag.String("pods", "../../../test/e2e/policy/testdata/benchpods.yaml", "the benchmark pods, windows then linux")

// The pods of test/e2e/policy's BenchmarkPodCreateAdmission, from the file
// it reads too.
func windowsPod(t testing.TB) *corev1.Pod { return benchPod(t, "windows") }
func linuxPod(t testing.TB) *corev1.Pod   { return benchPod(t, "linux") }

func benchPod(t testing.TB, name string) *corev1.Pod {
	f, err := os.Open(*podsFile)
	if err != nil {
		t.Fatalf("the benchmark pods: %v", err)
	}
	defer f.Close()
	d := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var pod corev1.Pod
		if err := d.Decode(&pod); err != nil {
			t.Fatalf("%s: no pod %q: %v", *podsFile, name, err)
		}
		if pod.Name == name {
			pod.Name, pod.Namespace = "bench", "bench"
			return &pod
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	e := load(b)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
	}{{"windows-pod", windowsPod(b)}, {"linux-pod", linuxPod(b)}} {
		attr := admission.NewAttributesRecord(c.pod, nil, gvk, "bench", "bench", gvr, "", admission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "bench"})
		va := &admission.VersionedAttributes{Attributes: attr, VersionedKind: gvk, VersionedObject: c.pod}
		// Every decision must be an admit: an evaluation error would make
		// the figure meaningless.
		for i, v := range e.validators {
			for _, d := range v.Validate(context.Background(), gvr, va, e.params, ns, celconfig.RuntimeCELCostBudget, nil).Decisions {
				if d.Action != validating.ActionAdmit {
					b.Fatalf("%s: policy %s: %s %s", c.name, e.names[i], d.Action, d.Message)
				}
			}
		}
		b.Run(c.name, func(b *testing.B) {
			// The process's CPU time per admission: on a shared, loaded
			// machine wall time mostly measures the other processes. The
			// allocations per admission do not depend on the load at all,
			// and follow the CPU time closely (a quarter of it is GC).
			b.ReportAllocs()
			before := cpuTime()
			for b.Loop() {
				for _, v := range e.validators {
					v.Validate(context.Background(), gvr, va, e.params, ns, celconfig.RuntimeCELCostBudget, nil)
				}
			}
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
		})
		for i, v := range e.validators {
			b.Run(c.name+"/policy="+e.names[i], func(b *testing.B) {
				b.ReportAllocs()
				before := cpuTime()
				for b.Loop() {
					v.Validate(context.Background(), gvr, va, e.params, ns, celconfig.RuntimeCELCostBudget, nil)
				}
				b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
			})
		}
	}
}
