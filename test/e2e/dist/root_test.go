package dist

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repoRoot is the module root, two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("cannot find the module root: %v", err)
	}
	return root
}

// tool finds a tool hack/ensure-tools.sh installs, or fails the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	cache := os.Getenv("WINKUBE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "winkube")
	}
	p := filepath.Join(cache, "tools", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed: run `bash hack/ensure-tools.sh` (make test does)", name)
	}
	return p
}
