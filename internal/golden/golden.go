package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is registered once for every test binary that imports this
// package: go test ./internal/foo -update rewrites foo's golden files.
var update = flag.Bool("update", false, "rewrite the golden files from this run instead of comparing with them")

// Update reports whether the test binary runs with -update, for tests
// whose goldens follow rules of their own (a golden that must not exist
// when there is nothing to write).
func Update() bool { return *update }

// Check compares got with the file at path and reports the lines that
// differ; with -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, command())
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Errorf("%s is out of date (-want +got); if the change is intended, review it and run %s:\n%s", path, command(), diff)
	}
}

// command is the go test command that rewrites the goldens of the package
// under test, which runs in its own folder: go test ./internal/docs -update.
func command() string {
	dir, err := os.Getwd()
	if err != nil {
		return "go test -update"
	}
	for root := dir; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil || rel == "." {
				return "go test . -update"
			}
			return "go test ./" + filepath.ToSlash(rel) + " -update"
		}
		up := filepath.Dir(root)
		if up == root {
			return "go test -update"
		}
		root = up
	}
}
