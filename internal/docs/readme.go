package docs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/rule"
)

// The README is written by hand except for blocks between
//
//	<!-- generated: NAME (go test ./internal/docs -update) -->
//	<!-- end: NAME -->
//
// which the code renders: the command list and the rule count. The drift
// test holds the README to them; -update rewrites only those blocks.

var readmeBlock = regexp.MustCompile(`(?s)(<!-- generated: ([a-z]+) \(` + regexp.QuoteMeta(UpdateCommand) + `\) -->\n)(.*?)(<!-- end: ([a-z]+) -->)`)

// ReadmeBlocks renders the README's generated blocks by name.
func ReadmeBlocks(root *cobra.Command, c *catalogue.Catalogue) map[string]string {
	return map[string]string{
		"commands": commandTable(root),
		"rules":    ruleCount(c),
	}
}

// commandTable lists every available command below the root.
func commandTable(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			fmt.Fprintf(&b, "| [`%s`](docs/cli.md#%s) | %s |\n", sub.CommandPath(), anchor(sub.CommandPath()), cell(sub.Short))
			walk(sub)
		}
	}
	walk(root)
	return b.String()
}

// ruleCount says how many rules there are, by family and, for the lint
// rules, by category.
func ruleCount(c *catalogue.Catalogue) string {
	suite := c.Lint
	counts := map[rule.Category]int{}
	var order []rule.Category
	for _, r := range suite {
		if counts[r.Category] == 0 {
			order = append(order, r.Category)
		}
		counts[r.Category]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[c], c)
	}
	return fmt.Sprintf("%d rules: %d lint rules (%s), %d node-config rules, %d audit rules and %d doctor causes: [catalogue](docs/rules.md).\n",
		len(c.Rules()), len(suite), strings.Join(parts, ", "), len(c.NodeConfig), len(c.Audit), len(c.Doctor))
}

// UpdateReadme returns readme with every generated block rendered anew,
// and an error naming any block it has no renderer for, or a renderer no
// block uses.
func UpdateReadme(readme []byte, blocks map[string]string) ([]byte, error) {
	var errs []string
	seen := map[string]bool{}
	out := readmeBlock.ReplaceAllFunc(readme, func(m []byte) []byte {
		g := readmeBlock.FindSubmatch(m)
		name, end := string(g[2]), string(g[5])
		body, ok := blocks[name]
		switch {
		case name != end:
			errs = append(errs, fmt.Sprintf("block %q ends with %q", name, end))
			return m
		case !ok:
			errs = append(errs, fmt.Sprintf("no renderer for block %q", name))
			return m
		}
		seen[name] = true
		return slices.Concat(g[1], []byte(body), g[4])
	})
	for name := range blocks {
		if !seen[name] {
			errs = append(errs, fmt.Sprintf("README has no block %q", name))
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, fmt.Errorf("README: %s", strings.Join(errs, "; "))
	}
	return out, nil
}
