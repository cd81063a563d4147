package cli

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeConfig writes a .winkube.yaml with the rules block given.
func writeConfig(t *testing.T, rules string) string {
	t.Helper()
	body := "apiVersion: winkube.io/v1alpha1\nkind: Config\n"
	if rules != "" {
		body += "rules:\n" + rules
	}
	return writeFile(t, filepath.Join(t.TempDir(), "winkube.yaml"), body)
}

// findingsOf runs a command with -o json and returns "rule severity" for
// each finding of the rules named, sorted.
func findingsOf(t *testing.T, args []string, ids ...string) []string {
	t.Helper()
	code, out, errOut := run(t, false, "", append(args, "-o", "json", "--fail-on", "none")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var rep struct {
		Findings []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var got []string
	for _, f := range rep.Findings {
		for _, id := range ids {
			if f.Rule == id {
				got = append(got, f.Rule+" "+f.Severity)
			}
		}
	}
	sort.Strings(got)
	return got
}

// TestConfigLint and TestConfigNodeConfig: a .winkube.yaml that disables
// or re-grades a rule changes what the command reports, for lint and for
// nodeconfig validate, whose warning path (Pass.Warn) and load errors
// (node-config-input) keep the configured severity too. Audit's test runs
// against a real API server in test/e2e/audit; policy export's is below.
func TestConfigLint(t *testing.T) {
	t.Parallel()
	lint := func(cfg string) []string {
		return findingsOf(t, []string{"lint", "-q", "--config", cfg, examples}, "missing-os-pin", "windows-forbidden-field")
	}
	tests := []struct {
		name, rules string
		want        []string
	}{
		{"defaults", "", []string{"missing-os-pin warning", "windows-forbidden-field error"}},
		{"disabled", "  disable: [missing-os-pin]\n", []string{"windows-forbidden-field error"}},
		{"re-graded", "  severity: {missing-os-pin: error, windows-forbidden-field: info}\n", []string{"missing-os-pin error", "windows-forbidden-field info"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, lint(writeConfig(t, tt.rules))); diff != "" {
			t.Errorf("lint, %s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestConfigNodeConfig(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "nodeconfig", "testdata", "cases", "flannel-unset")
	validate := func(cfg string) []string {
		return findingsOf(t, []string{"nodeconfig", "validate", "--config", cfg, dir}, "flannel-vxlan-windows", "node-config-input")
	}
	tests := []struct {
		name, rules string
		want        []string
	}{
		{"defaults", "", []string{"flannel-vxlan-windows error", "flannel-vxlan-windows warning", "flannel-vxlan-windows warning", "node-config-input error"}},
		{"disabled", "  disable: [flannel-vxlan-windows, node-config-input]\n", nil},
		{"re-graded", "  severity: {flannel-vxlan-windows: error, node-config-input: warning}\n",
			[]string{"flannel-vxlan-windows error", "flannel-vxlan-windows error", "flannel-vxlan-windows error", "node-config-input warning"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, validate(writeConfig(t, tt.rules))); diff != "" {
			t.Errorf("nodeconfig validate, %s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestConfigPolicyExport: policy export exports the rules the config
// leaves on, at the configured severity.
func TestConfigPolicyExport(t *testing.T) {
	t.Parallel()
	export := func(rules string) string {
		code, out, errOut := run(t, false, "", "policy", "export", "--cluster", "aks", "--no-fixes", "--config", writeConfig(t, rules))
		if code != 0 {
			t.Fatalf("policy export: exit %d: %s", code, errOut)
		}
		return out
	}
	const id = "missing-windows-toleration"
	if out := export(""); !strings.Contains(out, id) {
		t.Fatalf("policy export does not export %s by default", id)
	}
	if out := export("  disable: [" + id + "]\n"); strings.Contains(out, id) {
		t.Errorf("policy export exports %s, which the config disables", id)
	}
	if a, b := export(""), export("  severity: {"+id+": info}\n"); a == b {
		t.Errorf("policy export is the same whether %s is an error or info", id)
	}
}
