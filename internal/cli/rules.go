package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rules"
)

func newRulesCommand(s Streams) *cobra.Command {
	o := &output{}
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules, or explain one",
		Example: `  winkube rules
  winkube rules -o json | jq -r '.[] | select(.severity == "error") | .id'
  winkube rules explain missing-windows-toleration`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.render(s, func(w io.Writer, format string, colour bool) error {
				return report.Rules(w, format, rules.Suite(), report.Options{Color: colour})
			})
		},
	}
	o.addFlags(cmd.Flags(), "list", report.RuleFormats...)
	cmd.AddCommand(newExplainCommand(s))
	return cmd
}

func newExplainCommand(s Streams) *cobra.Command {
	o := &output{}
	cmd := &cobra.Command{
		Use:   "explain RULE-ID",
		Short: "Print a rule's documentation",
		Example: `  winkube rules explain missing-windows-toleration
  winkube rules explain -o json windows-forbidden-field`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("explain takes one rule ID (winkube rules lists them)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			r := rules.ByID(args[0])
			if r == nil {
				return usagef("unknown rule %q (winkube rules lists them)", args[0])
			}
			return o.render(s, func(w io.Writer, format string, colour bool) error {
				return report.Explain(w, format, r, report.Options{Color: colour})
			})
		},
	}
	o.addFlags(cmd.Flags(), "documentation", report.RuleFormats...)
	return cmd
}
