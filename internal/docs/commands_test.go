package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/cli"
)

// commandLine finds a winkube command line in a piece of code: at its
// start, after a prompt, a pipe, && or a subshell.
var (
	commandLine = regexp.MustCompile(`(?:^|[|;&(]\s*|\$ )(?:kubectl )?winkube ([^|;&#\n)]+)`)
	codeSpan    = regexp.MustCompile("`([^`]+)`")
)

// code returns the code of a Markdown file, line by line: the lines of
// fenced blocks, and the inline code spans of the others.
func code(doc string) [][]string {
	var out [][]string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			out = append(out, nil)
			continue
		}
		if fenced {
			out = append(out, []string{strings.TrimSpace(line)})
			continue
		}
		var spans []string
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			spans = append(spans, m[1])
		}
		out = append(out, spans)
	}
	return out
}

// TestDocumentedCommandsExist reads every winkube command line the README,
// CONTRIBUTING and the hand-written docs show and checks that its
// subcommand exists and that it has every flag the line uses, so that the
// documentation cannot drift from the command tree.
func TestDocumentedCommandsExist(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "CONTRIBUTING.md", "deploy/README.md"}
	generated := map[string]bool{}
	for _, p := range Pages() {
		generated[p.Name] = true
	}
	pages, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, p := range pages {
		if !generated[filepath.Base(p)] {
			files = append(files, filepath.Join("docs", filepath.Base(p)))
		}
	}
	root := cli.Tree()
	checked := 0
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, pieces := range code(string(data)) {
			for _, piece := range pieces {
				for _, m := range commandLine.FindAllStringSubmatch(piece, -1) {
					args := strings.Fields(m[1])
					if len(args) > 0 && args[0] == "..." {
						continue
					}
					if err := checkCommand(root, args); err != "" {
						t.Errorf("%s:%d: winkube %s: %s", name, i+1, strings.TrimSpace(m[1]), err)
					}
					checked++
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("found only %d winkube command lines in the docs; is the pattern broken?", checked)
	}
}

// checkCommand walks args down the command tree and checks each flag.
func checkCommand(root *cobra.Command, args []string) string {
	cmd := root
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			break
		}
		sub := findSub(cmd, a)
		if sub == nil {
			break // an argument (a path, a pod, a rule ID)
		}
		cmd = sub
	}
	if cmd == root && i < len(args) && !strings.HasPrefix(args[i], "-") {
		return "no such command " + args[i]
	}
	for _, a := range args[i:] {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "" || strings.ContainsAny(name, "<>.$/") {
			continue
		}
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			f = lookup(cmd, name)
		} else if len(name) == 1 {
			f = lookupShort(cmd, name)
		} else {
			continue // a value such as -1
		}
		if f == nil {
			return "unknown flag " + a + " for " + cmd.CommandPath()
		}
	}
	return ""
}

func findSub(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

func lookup(cmd *cobra.Command, name string) *pflag.Flag {
	if name == "help" || name == "version" {
		return &pflag.Flag{Name: name}
	}
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.InheritedFlags().Lookup(name)
}

func lookupShort(cmd *cobra.Command, name string) *pflag.Flag {
	if name == "h" {
		return &pflag.Flag{Name: "help"}
	}
	if f := cmd.Flags().ShorthandLookup(name); f != nil {
		return f
	}
	return cmd.InheritedFlags().ShorthandLookup(name)
}
