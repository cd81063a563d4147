package rules

import "github.com/winkube/winkube/internal/rule"

var imageRules = []*rule.Rule{}
