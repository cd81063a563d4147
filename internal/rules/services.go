package rules

import "github.com/winkube/winkube/internal/rule"

var serviceRules = []*rule.Rule{}
