package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestInlinedVariables: every inlined variable is a workload variable.
func TestInlinedVariables(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, v := range workloadVariables() {
		names[v.name] = true
	}
	for _, name := range inlined {
		if !names[name] {
			t.Errorf("%s is not a workload variable", name)
		}
	}
}

// TestInlinedNotRead: the rendered policies read no inlined variable
// (the API server would refuse an unknown variable) and define the rest.
func TestInlinedNotRead(t *testing.T) {
	t.Parallel()
	o := Options{Rules: rules.Suite(), Model: winsupport.Default(), MinSeverity: 0}
	o.defaults()
	chosen, checks, _ := o.selected()
	var exprs []string
	for _, v := range celVariables() {
		if slices.Contains(inlined, v.Name) {
			t.Errorf("inlined variable %s is still defined", v.Name)
		}
		exprs = append(exprs, v.Expression)
	}
	for _, r := range chosen {
		for _, c := range checks[r] {
			v := validation(r, c)
			exprs = append(exprs, v.Expression, v.MessageExpression)
		}
	}
	for _, x := range exprs {
		for _, m := range variableRef.FindAllStringSubmatch(x, -1) {
			if slices.Contains(inlined, m[1]) {
				t.Errorf("an expression reads inlined variable %s: %.200s", m[1], x)
			}
		}
		if strings.Contains(x, "variables.variables") {
			t.Errorf("bad rendering: %.200s", x)
		}
	}
}
