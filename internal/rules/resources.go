package rules

import "github.com/winkube/winkube/internal/rule"

var resourceRules = []*rule.Rule{}
