package rules

import "github.com/winkube/winkube/internal/rule"

// Suite returns every rule, in catalogue order. Each group's file lists
// its own rules; nothing registers itself.
func Suite() []*rule.Rule {
	var all []*rule.Rule
	for _, group := range [][]*rule.Rule{
		inputRules,
		placementRules,
		apiRules,
		linuxOnlyRules,
		imageRules,
		resourceRules,
		serviceRules,
	} {
		all = append(all, group...)
	}
	return all
}

// ByID returns the rule with the ID, or nil.
func ByID(id string) *rule.Rule {
	for _, r := range Suite() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// API returns the rules that predict the API server's own rejections
// (category api-rejection), in catalogue order: what simulate's admission
// phase runs and what the real-API-server test holds to kube-apiserver.
func API() []*rule.Rule {
	var out []*rule.Rule
	for _, r := range Suite() {
		if r.Category == rule.API {
			out = append(out, r)
		}
	}
	return out
}
