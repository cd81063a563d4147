package cli

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
)

// familyFlag is --family: one family of the catalogue, or all of them.
type familyFlag struct {
	name   string
	family rule.Family
	all    bool
}

func (f *familyFlag) addFlag(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.name, "family", "", what+": lint, node-config, audit or doctor (default: every family)")
}

func (f *familyFlag) validate() error {
	f.all = f.name == ""
	if f.all {
		return nil
	}
	fam, err := rule.ParseFamily(f.name)
	if err != nil {
		return usagef("--family: %v", err)
	}
	f.family = fam
	return nil
}

// of returns the catalogue's rules of the family, or every rule.
func (f *familyFlag) of(c *catalogue.Catalogue) []*rule.Rule {
	if f.all {
		return c.Rules()
	}
	return c.Family(f.family)
}

func newRulesCommand(s Streams) *cobra.Command {
	o := &output{}
	fam := &familyFlag{}
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules of every family, or explain one",
		Long: `List every rule winkube can report: the lint rules (lint, fix, simulate,
the webhook, policy export), the node-config rules (nodeconfig validate), the
audit's rules (audit) and the causes doctor names (doctor). Any of them can be
explained with rules explain and named in .winkube.yaml.`,
		Example: `  winkube rules
  winkube rules --family node-config
  winkube rules -o json | jq -r '.[] | select(.severity == "error") | .id'
  winkube rules explain missing-windows-toleration`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if err := fam.validate(); err != nil {
				return err
			}
			return o.render(s, func(w io.Writer, format string, colour bool) error {
				return report.Rules(w, format, fam.of(catalogue.Default()), report.Options{Color: colour})
			})
		},
	}
	o.addFlags(cmd.Flags(), "list", report.RuleFormats...)
	fam.addFlag(cmd.Flags(), "list only one family")
	cmd.AddCommand(newExplainCommand(s))
	return cmd
}

func newExplainCommand(s Streams) *cobra.Command {
	o := &output{}
	fam := &familyFlag{}
	cmd := &cobra.Command{
		Use:   "explain RULE-ID",
		Short: "Print a rule's documentation",
		Long: `Print a rule's documentation. A doctor cause may share its ID with the
lint rule that predicts it; the lint rule is explained unless --family doctor
is given.`,
		Example: `  winkube rules explain missing-windows-toleration
  winkube rules explain -o json windows-forbidden-field
  winkube rules explain --family doctor linux-image-on-windows`,
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
			if err := fam.validate(); err != nil {
				return err
			}
			r := ruleByID(fam.of(catalogue.Default()), args[0])
			if r == nil {
				return usagef("unknown rule %q (winkube rules lists them)", args[0])
			}
			return o.render(s, func(w io.Writer, format string, colour bool) error {
				return report.Explain(w, format, r, report.Options{Color: colour})
			})
		},
	}
	o.addFlags(cmd.Flags(), "documentation", report.RuleFormats...)
	fam.addFlag(cmd.Flags(), "look the ID up in one family")
	return cmd
}

// ruleByID finds the first rule with the ID.
func ruleByID(rs []*rule.Rule, id string) *rule.Rule {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return nil
}
