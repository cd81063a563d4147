package fix

import (
	"fmt"

	"github.com/winkube/winkube/internal/rule"
)

// Policy says which fixes to apply.
type Policy struct {
	// Unsafe applies fixes that change security posture.
	Unsafe bool
	// Rules opts single rules in to their unsafe fixes.
	Rules map[string]bool
}

func (p Policy) allows(f rule.Finding) bool {
	return f.Fix.Safe || p.Unsafe || p.Rules[f.Rule]
}

// Plan groups the fixes of the findings by file. Suppressed findings are
// never fixed; unsafe fixes the policy does not allow come back in skipped.
func Plan(findings []rule.Finding, p Policy) (byFile map[string][]Edit, skipped []rule.Finding) {
	byFile = map[string][]Edit{}
	for _, f := range findings {
		if f.Fix == nil || f.Suppressed || f.Object == nil || len(f.Fix.Edits) == 0 {
			continue
		}
		if !p.allows(f) {
			skipped = append(skipped, f)
			continue
		}
		for _, e := range f.Fix.Edits {
			byFile[f.Object.File] = append(byFile[f.Object.File], Edit{Doc: f.Object.Doc, Item: f.Object.Item, Edit: e, Rule: f.Rule, Title: f.Fix.Title})
		}
	}
	return byFile, skipped
}

// Describe is a one-line account of an applied edit, for the diff header.
func Describe(a Applied) string {
	switch {
	case a.Err != nil:
		return fmt.Sprintf("could not %s %s: %v [%s]", a.Op, a.Path, a.Err, a.Rule)
	case !a.Changed:
		return fmt.Sprintf("already done: %s [%s]", a.Title, a.Rule)
	}
	return fmt.Sprintf("%s (%s %s) [%s]", a.Title, a.Op, a.Path, a.Rule)
}
