package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Part of the API server's cost of a policy (k8s.io/apiserver v0.36.3
// pkg/admission/plugin/cel/composition.go, condition.go) is fixed per
// program evaluation: each variable a request reads and each expression
// is one cel-go evaluation with its own cost tracker (about 7 µs on the
// benchmark machine before any work), and a policy's variables are
// evaluated again for its validations and for its message expressions
// (hack/controlplane/policycost BenchmarkCost, docs/performance.md
// "policy", run 7). Inlining below cuts evaluations without changing any
// result.

// inlined are variables cheaper to compute at each use than to evaluate
// as a variable: a field read or comparison, read by few expressions and
// in no loop. The rendered policies carry their expression in place of
// variables.<name>; the code keeps them as variables for readability.
var inlined = []string{"specOS", "pinned", "pinOS", "schedWindows", "hybrid", "isDaemonSet"}

var variableRef = regexp.MustCompile(`\bvariables\.([A-Za-z_][A-Za-z0-9_]*)\b`)

// inliner returns the rendering of an expression with the inlined
// variables of vs replaced by their (themselves inlined) expressions.
func inliner(vs []variable) func(string) string {
	exprs := map[string]string{}
	for _, v := range vs {
		exprs[v.name] = v.expr
	}
	done := map[string]string{}
	var render func(string) string
	render = func(s string) string {
		return variableRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := strings.TrimPrefix(ref, "variables.")
			if !slices.Contains(inlined, name) {
				return ref
			}
			if x, ok := done[name]; ok {
				return x
			}
			x := "(" + render(exprs[name]) + ")"
			done[name] = x
			return x
		})
	}
	return render
}

// renderInlined renders an expression over the workload variables with
// the inlined ones in place.
func renderInlined(expr string) string { return workloadInliner()(expr) }

var workloadInliner = sync.OnceValue(func() func(string) string { return inliner(workloadVariables()) })

// renderedVariables are vs as the policies carry them: the inlined ones
// dropped, the others' expressions rendered.
func renderedVariables(vs []variable) []variable {
	render := inliner(vs)
	var out []variable
	for _, v := range vs {
		if !slices.Contains(inlined, v.name) {
			out = append(out, variable{v.name, render(v.expr)})
		}
	}
	return out
}
