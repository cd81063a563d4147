package docs

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CLI writes the command reference: every available command of the tree,
// depth first, with its usage, description, examples and flags.
func CLI(w io.Writer, root *cobra.Command) error {
	bw := bufio.NewWriter(w)
	// cobra adds --version when it executes; the reference shows it.
	root.InitDefaultVersionFlag()
	var cmds []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	header(bw, "Command-line reference")
	fmt.Fprintf(bw, "Every command also accepts `-h`, `--help`. Data goes to stdout, status and\nerrors to stderr.\n\n")
	for _, c := range cmds {
		fmt.Fprintf(bw, "- [`%s`](#%s): %s\n", c.CommandPath(), anchor(c.CommandPath()), md(c.Short))
	}
	for _, c := range cmds {
		writeCommand(bw, c)
	}
	return bw.Flush()
}

func writeCommand(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "\n## %s\n\n%s\n\n", c.CommandPath(), md(c.Short))
	fmt.Fprintf(w, "```\n%s\n```\n", c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(w, "\n%s\n", md(c.Long))
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n\n```sh\n%s\n```\n", dedent(c.Example))
	}
	if subs := availableCommands(c); len(subs) > 0 {
		fmt.Fprintf(w, "\nCommands:\n\n")
		for _, sub := range subs {
			fmt.Fprintf(w, "- [`%s`](#%s): %s\n", sub.Name(), anchor(sub.CommandPath()), md(sub.Short))
		}
	}
	writeFlags(w, "Flags", c.LocalFlags())
	if c.HasAvailableInheritedFlags() {
		writeFlags(w, "Global flags", c.InheritedFlags())
	}
}

func availableCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, sub)
		}
	}
	return out
}

// writeFlags writes a table of the visible flags, sorted by name as pflag
// keeps them, skipping --help, which every command has.
func writeFlags(w io.Writer, title string, fs *pflag.FlagSet) {
	var rows []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name, usage := pflag.UnquoteUsage(f)
		flag := "--" + f.Name
		if f.Shorthand != "" {
			flag = "-" + f.Shorthand + ", " + flag
		}
		if name != "" {
			flag += " " + name
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "[]" && !(f.Value.Type() == "bool" && f.DefValue == "false") {
			def = "`" + f.DefValue + "`"
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", flag, def, cell(usage)))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n\n| flag | default | description |\n|---|---|---|\n%s\n", title, strings.Join(rows, "\n"))
}

// dedent removes the indentation cobra's examples share.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}
