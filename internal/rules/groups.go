package rules

import "github.com/winkube/winkube/internal/rule"

// Groups still being filled in; each moves to its own file.
var (
	linuxOnlyRules []*rule.Rule
	imageRules     []*rule.Rule
	resourceRules  []*rule.Rule
	serviceRules   []*rule.Rule
)
