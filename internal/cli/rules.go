package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

func newRulesCommand(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules, or explain one",
		Example: `  winkube rules
  winkube rules explain missing-windows-toleration`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return listRules(s.Out) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "explain RULE-ID",
		Short: "Print a rule's documentation",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("explain takes one rule ID (winkube rules lists them)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			r := rules.ByID(args[0])
			if r == nil {
				return usagef("unknown rule %q (winkube rules lists them)", args[0])
			}
			return explain(s.Out, r)
		},
	})
	return cmd
}

func listRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tCATEGORY\tTITLE")
	for _, r := range rules.Suite() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Category, r.Title)
	}
	return tw.Flush()
}

func explain(w io.Writer, r *rule.Rule) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.ID, r.Title)
	fmt.Fprintf(&b, "severity: %s, category: %s\n\n", r.Severity, r.Category)
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
