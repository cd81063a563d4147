package doctor

import (
	"fmt"
	"strings"
	"sync"

	"github.com/winkube/winkube/internal/rule"
)

// CategoryCause is the category of every cause in the rule catalogue.
const CategoryCause rule.Category = "cause"

// causeRules documents each cause as a rule of the doctor family, built
// once so that a cause's rule is the same value wherever it is asked for.
var causeRules = sync.OnceValue(func() map[*Cause]*rule.Rule {
	m := map[*Cause]*rule.Rule{}
	for _, c := range Causes() {
		m[c] = &rule.Rule{
			ID: c.ID, Title: c.Title, Category: CategoryCause, Family: rule.FamilyDoctor,
			// A cause names why a pod is stuck: a failure, whichever it is.
			Severity: rule.Error,
			Doc: rule.Doc{
				What:    c.Explain,
				Why:     shownBy(c),
				Fix:     strings.Join(c.Steps, " "),
				Sources: c.Sources,
			},
		}
	}
	return m
})

// Rule is the cause as the rule catalogue lists it (winkube rules,
// rules explain, docs/rules.md); nil for a cause not in Causes().
func (c *Cause) Rule() *rule.Rule { return causeRules()[c] }

// Rules returns the causes' rules, in the order causes are tried.
func Rules() []*rule.Rule {
	cs := Causes()
	out := make([]*rule.Rule, len(cs))
	for i, c := range cs {
		out[i] = c.Rule()
	}
	return out
}

// shownBy says what makes doctor name the cause.
func shownBy(c *Cause) string {
	if c == Unknown {
		return "winkube doctor names this cause when a pod is unhealthy and no other cause matches its status, events and node."
	}
	if len(c.Patterns) == 0 {
		return "winkube doctor names this cause from the pod's status, its events and its node's facts."
	}
	var q []string
	for _, p := range c.Patterns {
		q = append(q, fmt.Sprintf("%q (%s)", strings.TrimSpace(p.Text), p.Service))
	}
	return "winkube doctor names this cause when the pod's status or events say " + strings.Join(q, ", ") + "."
}
