package rules

import "github.com/winkube/winkube/internal/rule"

var linuxOnlyRules = []*rule.Rule{}
