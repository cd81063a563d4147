package catalogue

import (
	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// Catalogue is every rule winkube can report, family by family.
type Catalogue struct {
	Lint       []*rule.Rule // rules.Suite()
	NodeConfig []*rule.Rule // nodeconfig.Rules()
	Audit      []*rule.Rule // audit.Rules(nil): audit.NodeRules() and the audit's own
	Doctor     []*rule.Rule // doctor.Rules(), from doctor.Causes()
}

// Default is winkube's catalogue, read from each family's list.
func Default() *Catalogue {
	return &Catalogue{
		Lint:       rules.Suite(),
		NodeConfig: nodeconfig.Rules(),
		Audit:      audit.Rules(nil),
		Doctor:     doctor.Rules(),
	}
}

// Rules returns every rule of every family, family by family in the order
// of rule.Families, each family in its own list's order.
func (c *Catalogue) Rules() []*rule.Rule {
	var out []*rule.Rule
	for _, f := range rule.Families {
		out = append(out, c.Family(f)...)
	}
	return out
}

// Family returns the rules of one family, in their list's order.
func (c *Catalogue) Family(f rule.Family) []*rule.Rule {
	switch f {
	case rule.Lint:
		return c.Lint
	case rule.FamilyNodeConfig:
		return c.NodeConfig
	case rule.FamilyAudit:
		return c.Audit
	case rule.FamilyDoctor:
		return c.Doctor
	}
	return nil
}

// ByID returns the rule with the ID, of whichever family, or nil.
func (c *Catalogue) ByID(id string) *rule.Rule {
	for _, r := range c.Rules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Rules returns every rule of the default catalogue.
func Rules() []*rule.Rule { return Default().Rules() }

// ByID returns the rule of the default catalogue with the ID, or nil.
func ByID(id string) *rule.Rule { return Default().ByID(id) }
