package docs

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

func render(t *testing.T, p Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		t.Fatalf("rendering %s: %v", p.Name, err)
	}
	return b.String()
}

// TestDocsUpToDate fails when a generated page in docs/ differs from what
// the code renders now; -update rewrites the pages.
func TestDocsUpToDate(t *testing.T) {
	for _, p := range Pages() {
		t.Run(p.Name, func(t *testing.T) {
			got := render(t, p)
			if again := render(t, p); again != got {
				t.Fatalf("%s renders differently twice", p.Name)
			}
			golden.Check(t, filepath.Join("..", "..", "docs", p.Name), []byte(got))
		})
	}
}

func page(t *testing.T, name string) string {
	t.Helper()
	for _, p := range Pages() {
		if p.Name == name {
			return render(t, p)
		}
	}
	t.Fatalf("no page %s", name)
	return ""
}

func TestRulesPage(t *testing.T) {
	t.Parallel()
	got := page(t, "rules.md")
	for _, r := range rules.Suite() {
		// Workload rules honour the annotation on the object, and
		// windows-template-not-rendered in the template's source
		// (internal/chart TestWindowsTemplatesNotRendered); no other rule.
		honours := r.Workload != nil || r == rules.WindowsTemplateNotRendered
		for _, want := range []string{"\n### " + r.ID + "\n", "[`" + r.ID + "`](#" + r.ID + ")", "`winkube.io/ignore: " + r.ID + "`"} {
			if !honours && strings.HasPrefix(want, "`winkube.io") {
				continue
			}
			if !strings.Contains(got, want) {
				t.Errorf("rules.md lacks %q", want)
			}
		}
		if !honours && strings.Contains(got, "`winkube.io/ignore: "+r.ID+"`") {
			t.Errorf("rules.md offers the annotation for %s, which the engine does not honour for it", r.ID)
		}
	}
}

func TestCLIPage(t *testing.T) {
	t.Parallel()
	got := page(t, "cli.md")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !strings.Contains(got, "\n## "+c.CommandPath()+"\n") {
			t.Errorf("cli.md lacks a section for %s", c.CommandPath())
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !strings.Contains(got, "--"+f.Name+"`") && !strings.Contains(got, "--"+f.Name+" ") {
				t.Errorf("cli.md lacks flag --%s of %s", f.Name, c.CommandPath())
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.Tree())
	for _, want := range []string{"| `-o, --output string` | `text` |", "| `--output-file stringArray` |  |", "| `--fail-on string` | `error` |", "| `-q, --quiet` |  |", "\nhelm template ./chart | winkube lint -\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("cli.md lacks %q", want)
		}
	}
}

func TestSupportMatrixPage(t *testing.T) {
	t.Parallel()
	got := page(t, "support-matrix.md")
	m := winsupport.Default()
	for _, b := range m.Builds() {
		if !strings.Contains(got, "| "+b.Name+" | `"+b.Build+"` |") {
			t.Errorf("support-matrix.md lacks build %s", b.Build)
		}
	}
	for _, v := range m.VolumeTypes() {
		if !strings.Contains(got, "| `"+v.Name+"` | "+v.Windows.String()+" |") {
			t.Errorf("support-matrix.md lacks volume type %s", v.Name)
		}
	}
	for _, f := range m.Features() {
		if !strings.Contains(got, "| `"+f.ID+"` |") {
			t.Errorf("support-matrix.md lacks feature %s", f.ID)
		}
	}
	// Every release from 1.23 has a row with its count of forbidden fields.
	for v := forbiddenFrom; !winsupport.Newest.Less(v); v.Minor++ {
		pod, ctr := winsupport.ForVersion(v).ForbiddenFieldNames()
		if want := "| " + v.String() + " | " + strconv.Itoa(len(pod)+len(ctr)) + " |"; !strings.Contains(got, want) {
			t.Errorf("support-matrix.md lacks %q", want)
		}
	}
}
