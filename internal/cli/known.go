package cli

import (
	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// knownRules is every rule winkube can report: the lint suite, the node
// configuration rules and the audit's own. A .winkube.yaml may name any of
// them, and `winkube rules explain` explains any of them.
func knownRules() []*rule.Rule {
	return append(audit.Rules(nodeconfig.Rules()), rules.Suite()...)
}

// ruleByID finds a known rule.
func ruleByID(id string) *rule.Rule {
	for _, r := range knownRules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}
