package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/golden"
)

// TestReadmeUpToDate holds the README's generated blocks (the command
// list, the rule count) to the code; -update rewrites them.
func TestReadmeUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UpdateReadme(readme, ReadmeBlocks(cli.Tree(), catalogue.Default()))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, path, got)
	// Outside the blocks nobody counts rules by hand.
	prose := readmeBlock.ReplaceAllString(string(readme), "")
	if m := regexp.MustCompile(`\b\d+ rules\b`).FindString(prose); m != "" {
		t.Errorf("README.md counts rules by hand (%q); use the generated block", m)
	}
}

func TestUpdateReadme(t *testing.T) {
	t.Parallel()
	open := func(name string) string { return "<!-- generated: " + name + " (" + UpdateCommand + ") -->\n" }
	in := "intro\n" + open("a") + "old\n<!-- end: a -->\nmiddle\n" + open("b") + "<!-- end: b -->\n"
	got, err := UpdateReadme([]byte(in), map[string]string{"a": "new a\n", "b": "new b\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n" + open("a") + "new a\n<!-- end: a -->\nmiddle\n" + open("b") + "new b\n<!-- end: b -->\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		blocks map[string]string
		err    string
	}{
		{map[string]string{"a": ""}, `no renderer for block "b"`},
		{map[string]string{"a": "", "b": "", "c": ""}, `README has no block "c"`},
	} {
		if _, err := UpdateReadme([]byte(in), tt.blocks); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("UpdateReadme(%v) = %v, want %q", tt.blocks, err, tt.err)
		}
	}
}
