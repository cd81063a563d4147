package catalogue

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Validate checks every rule of the catalogue the way analysis.Validate
// checks analyzers, and reports every problem at once: unique kebab-case
// IDs across families (a doctor cause may take the ID of the lint rule
// that predicts it), each rule of the family of the list it is in, a
// title, a category, a severity (with Configured left to configs), a
// complete doc with sources, and the run function its family needs.
func Validate(c *Catalogue) error {
	var errs []error
	bad := func(r *rule.Rule, format string, args ...any) {
		errs = append(errs, fmt.Errorf("rule %s (%s): %s", r.ID, r.Family, fmt.Sprintf(format, args...)))
	}
	seen := map[string]map[rule.Family]bool{}
	for _, f := range rule.Families {
		for _, r := range c.Family(f) {
			if r.Family != f {
				bad(r, "listed in the %s family but declares Family %s: set Family to rule.%s", f, r.Family, familyConst[f])
			}
			if !idRE.MatchString(r.ID) {
				bad(r, "ID is not kebab-case")
			}
			// A doctor cause may share the ID of the lint rule that predicts
			// it (linux-image-on-windows): one problem, foreseen or found.
			for prev := range seen[r.ID] {
				if !(prev == rule.Lint && f == rule.FamilyDoctor) {
					bad(r, "ID is also used in the %s family", prev)
				}
			}
			if seen[r.ID] == nil {
				seen[r.ID] = map[rule.Family]bool{}
			}
			seen[r.ID][f] = true
			if r.Title == "" || strings.HasSuffix(r.Title, ".") {
				bad(r, "a title is required and does not end with a period")
			}
			if r.Doc.What == "" || r.Doc.Why == "" || r.Doc.Fix == "" || len(r.Doc.Sources) == 0 {
				bad(r, "doc (what, why, fix, sources) is required")
			}
			if r.Category == "" {
				bad(r, "category is required")
			}
			if r.Severity == rule.Unset || r.Configured != rule.Unset {
				bad(r, "severity %v, configured %v: a rule sets its severity and leaves Configured to configs", r.Severity, r.Configured)
			}
			errs = append(errs, runProblems(r)...)
		}
	}
	return errors.Join(errs...)
}

// runProblems checks that a rule has the run function of its family and no
// other's.
func runProblems(r *rule.Rule) []error {
	var errs []error
	n := 0
	for _, set := range []bool{r.Workload != nil, r.Object != nil, r.Corpus != nil} {
		if set {
			n++
		}
	}
	switch {
	case r.Family != rule.Lint && n > 0:
		errs = append(errs, fmt.Errorf("rule %s (%s): Workload, Object and Corpus are for lint rules", r.ID, r.Family))
	case r.Family == rule.Lint && !engineReported(r) && n != 1:
		errs = append(errs, fmt.Errorf("rule %s (lint): exactly one of Workload, Object and Corpus must be set", r.ID))
	case r.Object != nil && len(r.Kinds) == 0:
		errs = append(errs, fmt.Errorf("rule %s (lint): an Object rule must list its Kinds", r.ID))
	}
	switch {
	case r.Run != nil && r.Run.Family() != r.Family:
		errs = append(errs, fmt.Errorf("rule %s (%s): its Run is run by package %s; give it its own family's Run", r.ID, r.Family, r.Run.Family()))
	case r.Run == nil && needsRun(r):
		errs = append(errs, fmt.Errorf("rule %s (%s): it has no Run", r.ID, r.Family))
	}
	return errs
}

// needsRun reports whether r is a node-config or audit node rule, which
// carry their run function: all but node-config's input rule (the load
// errors Parse returns) and the audit's own rules, which the audit reports
// itself.
func needsRun(r *rule.Rule) bool {
	switch r.Family {
	case rule.FamilyNodeConfig:
		return r != nodeconfig.Input()
	case rule.FamilyAudit:
		return slices.Contains(audit.NodeRules(), r)
	}
	return false
}

// familyConst names each family's constant, for the message that says
// which to set.
var familyConst = map[rule.Family]string{
	rule.Lint: "Lint", rule.FamilyNodeConfig: "FamilyNodeConfig", rule.FamilyAudit: "FamilyAudit", rule.FamilyDoctor: "FamilyDoctor",
}

// engineReported are the lint rules the engine reports from what reading
// the input met (a load error, a chart's note), with no run function.
func engineReported(r *rule.Rule) bool {
	return r == rules.LoadError || r == rules.WindowsTemplateNotRendered
}
