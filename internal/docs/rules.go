package docs

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// categoryTitles names the catalogue's sections; a category missing here
// is shown by its ID.
var categoryTitles = map[rule.Category]string{
	rule.Input:      "Input",
	rule.Placement:  "Placement",
	rule.API:        "API server rejections",
	rule.LinuxOnly:  "Linux-only features",
	rule.Images:     "Images and Windows builds",
	rule.Resources:  "Resources",
	rule.Networking: "Services and networking",
	rule.Identity:   "Identity",
	rule.NodeConfig: "Node configuration rules",
}

func categoryTitle(c rule.Category) string {
	if t, ok := categoryTitles[c]; ok {
		return t
	}
	return string(c)
}

// Rules writes the rule catalogue of every family: an index, then each
// lint category's rules in suite order with their documentation and how to
// suppress them, then the node-config rules, then indexes of the audit's
// rules and doctor's causes, which docs/audit.md documents.
func Rules(w io.Writer, c *catalogue.Catalogue) error {
	bw := bufio.NewWriter(w)
	if err := lintRules(bw, c); err != nil {
		return err
	}
	if err := NodeRules(bw, c.NodeConfig); err != nil {
		return err
	}
	liveRules(bw, c)
	return bw.Flush()
}

func lintRules(bw *bufio.Writer, cat *catalogue.Catalogue) error {
	suite := cat.Lint
	var order []rule.Category
	byCat := map[rule.Category][]*rule.Rule{}
	for _, r := range suite {
		if byCat[r.Category] == nil {
			order = append(order, r.Category)
		}
		byCat[r.Category] = append(byCat[r.Category], r)
	}
	header(bw, "Rule catalogue")
	fmt.Fprintf(bw, "winkube has %d rules in four families: %d lint rules in %d categories, %d\n"+
		"[node-config rules](#%s), %d [audit rules](#audit-rules) and %d [doctor causes](#doctor-causes).\n"+
		"`winkube rules` lists them (`--family lint|node-config|audit|doctor`) and\n"+
		"`winkube rules explain RULE-ID` prints one entry of this page.\n\n",
		len(cat.Rules()), len(suite), len(order), len(cat.NodeConfig), anchor(categoryTitle(rule.NodeConfig)), len(cat.Audit), len(cat.Doctor))
	writeSuppression(bw)
	fmt.Fprintf(bw, "## Index\n\nThe policy column says whether `winkube policy export` turns the rule into an\nadmission policy the API server evaluates itself ([exported policies](policy.md)).\n\n| rule | severity | category | policy | title |\n|---|---|---|---|---|\n")
	for _, c := range order {
		for _, r := range byCat[c] {
			exported := "no"
			if ok, _ := policy.Exportable(r.ID); ok {
				exported = "yes"
			}
			fmt.Fprintf(bw, "| [`%s`](#%s) | %s | [%s](#%s) | %s | %s |\n", r.ID, anchor(r.ID), r.Severity, c, anchor(categoryTitle(c)), exported, cell(r.Title))
		}
	}
	for _, c := range order {
		fmt.Fprintf(bw, "\n## %s\n", categoryTitle(c))
		for _, r := range byCat[c] {
			writeRule(bw, r)
		}
	}
	return nil
}

// liveRules indexes the audit's rules and doctor's causes; docs/audit.md
// holds their documentation.
func liveRules(w io.Writer, c *catalogue.Catalogue) {
	fmt.Fprintf(w, "\n## Audit rules\n\n`winkube audit` reports these %d rules besides the lint rules, which it runs\nover the live workloads.\n\n| rule | severity | category | title |\n|---|---|---|---|\n", len(c.Audit))
	for _, r := range c.Audit {
		fmt.Fprintf(w, "| [`%s`](audit.md#%s) | %s | %s | %s |\n", r.ID, anchor(r.ID), r.Severity, r.Category, cell(r.Title))
	}
	fmt.Fprintf(w, "\n## Doctor causes\n\n`winkube doctor` names these %d causes of a stuck pod, tried in this order\n(`winkube doctor --causes` lists them). A cause can be disabled in `%s`;\nit has no severity.\n\n| cause | title |\n|---|---|\n", len(c.Doctor), config.FileName)
	for _, r := range c.Doctor {
		fmt.Fprintf(w, "| [`%s`](audit.md#%s) | %s |\n", r.ID, anchor(r.ID), cell(r.Title))
	}
}

func writeSuppression(w io.Writer) {
	fmt.Fprintf(w, "## Suppressing findings\n\n"+
		"- **One workload:** annotate the workload or its pod template with\n"+
		"  `%s: rule-id,other-id` (or `all`). This applies to the\n"+
		"  rules that check workloads. Suppressed findings are hidden in text and\n"+
		"  GitHub output and never fail the run, but stay in the JSON report\n"+
		"  (`\"suppressed\": true`) and in SARIF (an `inSource` suppression), so\n"+
		"  audits can see what was waived.\n"+
		"- **Everywhere:** list the rule under `rules.disable` in `%s`, or change\n"+
		"  its severity under `rules.severity`.\n\n", engine.IgnoreAnnotation, config.FileName)
}

func writeRule(w io.Writer, r *rule.Rule) {
	fmt.Fprintf(w, "\n### %s\n\n", r.ID)
	fmt.Fprintf(w, "**%s**\n\n", md(r.Title))
	fmt.Fprintf(w, "Severity: **%s** · checks: %s\n\n", r.Severity, scope(r))
	fmt.Fprintf(w, "**What it checks.** %s\n\n", md(r.Doc.What))
	fmt.Fprintf(w, "**Why it matters on Windows.** %s\n\n", md(r.Doc.Why))
	fmt.Fprintf(w, "**How to fix.** %s\n\n", md(r.Doc.Fix))
	if len(r.Doc.Sources) > 0 {
		fmt.Fprintf(w, "**Sources:**\n\n")
		for _, s := range r.Doc.Sources {
			fmt.Fprintf(w, "- %s\n", md(s))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "**Admission policy:** %s\n\n", exportNote(r))
	fmt.Fprintf(w, "**Suppress:** %s\n", suppression(r))
}

// exportNote says whether winkube policy export carries the rule, and why
// not when it does not.
func exportNote(r *rule.Rule) string {
	ok, why := policy.Exportable(r.ID)
	if ok && why != "" {
		return "exported by `winkube policy export` as CEL (ValidatingAdmissionPolicy and Kyverno), in part: " + md(why) + "."
	}
	if ok {
		return "exported by `winkube policy export` as CEL (ValidatingAdmissionPolicy and Kyverno)."
	}
	return "not exported: " + md(why) + "."
}

// scope says what a rule looks at, from the run function it sets.
func scope(r *rule.Rule) string {
	switch {
	case r.Family == rule.FamilyNodeConfig:
		return "Windows node configuration files (`winkube nodeconfig validate`)"
	case r.Workload != nil:
		return "every workload (an object with a pod template)"
	case r.Object != nil:
		kinds := make([]string, len(r.Kinds))
		for i, k := range r.Kinds {
			kinds[i] = "`" + k + "`"
		}
		return "objects of kind " + strings.Join(kinds, ", ")
	case r.Corpus != nil:
		return "the whole input at once (every Service and a summary of every workload)"
	}
	return "the input files themselves, before any object exists"
}

func suppression(r *rule.Rule) string {
	disable := fmt.Sprintf("`rules: {disable: [%s]}` in `%s`", r.ID, config.FileName)
	if r.Family == rule.FamilyNodeConfig {
		return disable + "."
	}
	if r.Workload != nil {
		return fmt.Sprintf("`%s: %s` on the workload or its pod template, or %s.", engine.IgnoreAnnotation, r.ID, disable)
	}
	if r == rules.WindowsTemplateNotRendered {
		// A chart template that rendered nothing has no object to
		// annotate: internal/chart reads the annotation from the
		// template's source.
		return fmt.Sprintf("`%s: %s` written in the template's source, or %s.", engine.IgnoreAnnotation, r.ID, disable)
	}
	return disable + "; the annotation applies to workload rules only."
}
