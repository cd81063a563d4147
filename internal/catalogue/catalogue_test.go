package catalogue

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rule"
)

// TestValidate holds the catalogue to the shape every rule needs; it
// replaces the suite tests each family had.
func TestValidate(t *testing.T) {
	t.Parallel()
	if err := Validate(Default()); err != nil {
		t.Error(err)
	}
}

// TestValidateRefuses: Validate reports a broken rule of each kind, every
// problem at once.
func TestValidateRefuses(t *testing.T) {
	t.Parallel()
	good := Default()
	dup := *good.Lint[1]
	tests := []struct {
		name string
		edit func(c *Catalogue)
		want []string
	}{
		{"duplicate ID across families", func(c *Catalogue) {
			d := *good.Audit[0]
			d.Family = rule.FamilyDoctor
			c.Doctor = append(c.Doctor, &d)
		}, []string{"ID is also used in the audit family"}},
		{"wrong family", func(c *Catalogue) {
			r := *good.Audit[0]
			r.ID, r.Family = "throwaway-audit", rule.Lint
			c.Audit = append(c.Audit, &r)
		}, []string{"listed in the audit family but declares Family lint: set Family to rule.FamilyAudit"}},
		{"undocumented lint rule without a run function", func(c *Catalogue) {
			c.Lint = append(c.Lint, &rule.Rule{ID: "Not_Kebab", Title: "Ends with a period.", Severity: rule.Warning})
		}, []string{"not kebab-case", "does not end with a period", "doc (what, why, fix, sources) is required", "category is required", "exactly one of Workload, Object and Corpus"}},
		{"configured in the suite", func(c *Catalogue) {
			r := dup
			r.ID, r.Configured = "throwaway-configured", rule.Error
			c.Lint = append(c.Lint, &r)
		}, []string{"leaves Configured to configs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *good
			c.Lint, c.Audit, c.Doctor = clip(c.Lint), clip(c.Audit), clip(c.Doctor)
			tt.edit(&c)
			err := Validate(&c)
			if err == nil {
				t.Fatal("Validate accepted the broken catalogue")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate's error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func clip(rs []*rule.Rule) []*rule.Rule { return rs[:len(rs):len(rs)] }
