package cli

import (
	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/rule"
)

// knownRules is every rule winkube can report, of every family: what
// `winkube rules` lists, `rules explain` explains and a .winkube.yaml may
// name.
func knownRules() []*rule.Rule { return catalogue.Rules() }
