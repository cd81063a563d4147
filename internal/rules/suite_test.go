package rules

import (
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rule"
)

var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestSuite validates the suite the way analysis.Validate validates
// analyzers: unique kebab-case IDs, complete docs, exactly one run function.
func TestSuite(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Suite() {
		if !idRE.MatchString(r.ID) {
			t.Errorf("rule ID %q is not kebab-case", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("duplicate rule ID %q", r.ID)
		}
		seen[r.ID] = true
		if r.Title == "" || r.Doc.What == "" || r.Doc.Why == "" || r.Doc.Fix == "" {
			t.Errorf("rule %s: title and doc (what, why, fix) are required", r.ID)
		}
		if r.Category == "" {
			t.Errorf("rule %s: category is required", r.ID)
		}
		if r.Severity == rule.Unset || r.Configured != rule.Unset {
			t.Errorf("rule %s: severity %v, configured %v; a rule sets its severity and leaves Configured to configs", r.ID, r.Severity, r.Configured)
		}
		n := 0
		for _, set := range []bool{r.Workload != nil, r.Object != nil, r.Corpus != nil} {
			if set {
				n++
			}
		}
		if r.ID == LoadError.ID {
			n++ // run by the engine
		}
		if n != 1 {
			t.Errorf("rule %s: exactly one of Workload, Object and Corpus must be set", r.ID)
		}
		if r.Object != nil && len(r.Kinds) == 0 {
			t.Errorf("rule %s: an Object rule must list its Kinds", r.ID)
		}
		if strings.HasSuffix(r.Title, ".") {
			t.Errorf("rule %s: title should not end with a period", r.ID)
		}
	}
}
