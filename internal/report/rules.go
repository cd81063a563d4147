package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/winkube/winkube/internal/rule"
)

// RuleFormats are the formats of `winkube rules` and `rules explain`.
var RuleFormats = []string{"text", "json"}

// jsonRule is a rule as `winkube rules -o json` prints it.
type jsonRule struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Severity rule.Severity `json:"severity"`
	Category rule.Category `json:"category"`
	Family   rule.Family   `json:"family"`
	What     string        `json:"what"`
	Why      string        `json:"why"`
	Fix      string        `json:"fix"`
	Sources  []string      `json:"sources"`
}

func ruleJSON(r *rule.Rule) jsonRule {
	return jsonRule{ID: r.ID, Title: r.Title, Severity: r.Severity, Category: r.Category, Family: r.Family, What: r.Doc.What, Why: r.Doc.Why, Fix: r.Doc.Fix, Sources: NonNil(r.Doc.Sources)}
}

// Rules writes the rule list: a table (ID, family, severity, category,
// title) or a JSON array of every rule with its family and documentation.
func Rules(w io.Writer, format string, rs []*rule.Rule, opts Options) error {
	if format == "json" {
		out := make([]jsonRule, len(rs))
		for i, r := range rs {
			out[i] = ruleJSON(r)
		}
		return WriteJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFAMILY\tSEVERITY\tCATEGORY\tTITLE")
	for _, r := range rs {
		// Colour codes are zero-width to a terminal but not to tabwriter:
		// pad before painting.
		sev := fmt.Sprintf("%-8s", r.Severity)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Family, paintSeverity(opts.Color, r.Severity, sev), r.Category, r.Title)
	}
	return tw.Flush()
}

// Explain writes one rule's documentation.
func Explain(w io.Writer, format string, r *rule.Rule, opts Options) error {
	if format == "json" {
		return WriteJSON(w, ruleJSON(r))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", Paint(opts.Color, Bold, r.ID), r.Title)
	fmt.Fprintf(&b, "family: %s, severity: %s, category: %s\n\n", r.Family, paintSeverity(opts.Color, r.Severity, r.Severity.String()), r.Category)
	fmt.Fprintf(&b, "What it checks\n  %s\n\nWhy it matters on Windows\n  %s\n\nHow to fix\n  %s\n", r.Doc.What, r.Doc.Why, r.Doc.Fix)
	if len(r.Doc.Sources) > 0 {
		fmt.Fprintf(&b, "\nSources\n")
		for _, s := range r.Doc.Sources {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// paintSeverity colours s as findings of severity sev are coloured.
func paintSeverity(on bool, sev rule.Severity, s string) string {
	switch sev {
	case rule.Error:
		return Paint(on, Red, s)
	case rule.Warning:
		return Paint(on, Yellow, s)
	}
	return Paint(on, Cyan, s)
}
