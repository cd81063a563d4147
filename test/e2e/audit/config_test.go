package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAuditConfig: a .winkube.yaml that disables or re-grades a node rule
// or a lint rule changes what winkube audit reports against the real API
// server; without it the same rules report at their own severities.
func TestAuditConfig(t *testing.T) {
	ids := []string{"windows-node-untainted", "windows-node-not-ready", "hybrid-too-few-nodes", "windows-node-containerd-old", "missing-windows-toleration"}
	audit := func(args ...string) []string {
		t.Helper()
		_, out, errOut := winkube(t, append([]string{"audit", "-o", "json", "--fail-on", "none", "--kubeconfig", cp.KubeconfigPath}, args...)...)
		var rep struct {
			Findings []struct{ Rule, Severity string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("audit output is not JSON: %v\n%s\nstderr: %s", err, out, errOut)
		}
		seen := map[string]bool{}
		var got []string
		for _, f := range rep.Findings {
			for _, id := range ids {
				if f.Rule == id && !seen[f.Rule+f.Severity] {
					seen[f.Rule+f.Severity] = true
					got = append(got, f.Rule+" "+f.Severity)
				}
			}
		}
		sort.Strings(got)
		return got
	}
	defaults := []string{"hybrid-too-few-nodes warning", "missing-windows-toleration error", "windows-node-containerd-old warning", "windows-node-not-ready error", "windows-node-untainted error"}
	if diff := cmp.Diff(defaults, audit()); diff != "" {
		t.Fatalf("audit without a config (-want +got):\n%s", diff)
	}
	cfg := filepath.Join(t.TempDir(), "winkube.yaml")
	body := "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n" +
		"  disable: [windows-node-untainted, missing-windows-toleration]\n" +
		"  severity: {windows-node-not-ready: info, hybrid-too-few-nodes: error}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"hybrid-too-few-nodes error", "windows-node-containerd-old warning", "windows-node-not-ready info"}
	if diff := cmp.Diff(want, audit("--config", cfg)); diff != "" {
		t.Errorf("audit with %s (-want +got):\n%s", body, diff)
	}
}
