package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/winkube/winkube/internal/nodeconfig"
)

// TestNodeConfigFlagReadsBounded: --node-config on lint, simulate and plan
// reads its files as nodeconfig validate does: a file over
// nodeconfig.MaxFileSize or a FIFO is refused with its name, without
// reading it whole or blocking.
func TestNodeConfigFlagReadsBounded(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.yaml")
	writeFile(t, app, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	big := filepath.Join(dir, "big", "kubelet.yaml")
	writeFile(t, big, "# "+strings.Repeat("x", nodeconfig.MaxFileSize)+"\n")
	fifo := filepath.Join(dir, "fifo", "config.toml")
	writeFile(t, filepath.Join(dir, "fifo", "placeholder"), "")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"lint", "simulate", "plan"} {
		for _, f := range []string{big, fifo} {
			args := []string{cmd, "--node-config", f, app}
			if cmd == "plan" {
				args = []string{cmd, "--node-config", f, "--kubernetes-version", "1.34", app}
			}
			code, out, errOut := run(t, false, "", args...)
			if code != 2 || !strings.Contains(errOut, f) {
				t.Errorf("%s --node-config %s: exit %d, want 2 and an error naming the file\nstdout: %s\nstderr: %s", cmd, filepath.Base(f), code, out, errOut)
			}
		}
	}
}
