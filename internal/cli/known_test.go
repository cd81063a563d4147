package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKnownRules: every rule winkube reports, lint, node-config or audit,
// can be explained and named in .winkube.yaml.
func TestKnownRules(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range knownRules() {
		if seen[r.ID] {
			t.Errorf("rule ID %s is used twice", r.ID)
		}
		seen[r.ID] = true
	}
	for _, id := range []string{"missing-windows-toleration", "kubelet-cgroups-per-qos", "windows-node-untainted"} {
		if !seen[id] {
			t.Fatalf("%s is not a known rule", id)
		}
		code, out, errOut := run(t, false, "", "rules", "explain", id)
		if code != 0 || !strings.HasPrefix(out, id+":") {
			t.Errorf("rules explain %s: exit %d\n%s%s", id, code, out, errOut)
		}
	}
	cfg := filepath.Join(t.TempDir(), "winkube.yaml")
	body := "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  disable: [kubelet-cgroups-per-qos, windows-node-untainted]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, false, "", "lint", "--config", cfg, "-q", examples); code == 2 {
		t.Errorf("a config naming node and audit rules is refused: %s", errOut)
	}
}
