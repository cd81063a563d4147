package dist

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestGoInstallable keeps `go install github.com/winkube/winkube/cmd/winkube@latest`
// working: go install of a version refuses a module whose go.mod has
// replace or exclude directives, and needs the main package at that path.
func TestGoInstallable(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Module.Mod.Path, "github.com/winkube/winkube"; got != want {
		t.Errorf("module path %q, want %q", got, want)
	}
	for _, r := range f.Replace {
		t.Errorf("go.mod:%d: replace %s: go install ...@version refuses modules with replace directives", r.Syntax.Start.Line, r.Old.Path)
	}
	for _, e := range f.Exclude {
		t.Errorf("go.mod:%d: exclude %s: go install ...@version refuses modules with exclude directives", e.Syntax.Start.Line, e.Mod.Path)
	}
	main, err := os.ReadFile(filepath.Join(root, "cmd", "winkube", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := parsePackage(main); err != nil || f != "main" {
		t.Errorf("cmd/winkube is package %q (%v), want main", f, err)
	}
}
