package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// A Windows pod that does not declare spec.os.name yet: windows-forbidden-
// field reports its hostPID at warning (the rule's own per-finding choice),
// and missing-spec-os at its default.
const windowsHostPID = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  hostPID: true
  containers:
  - name: c
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: 500m, memory: 256Mi}}
`

// TestConfiguredInfo: a config can lower a rule to info, every finding of
// it included, and JSON, SARIF and --fail-on all see info.
func TestConfiguredInfo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "config.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  severity: {windows-forbidden-field: info, missing-spec-os: info}\n")
	severities := func(args ...string) map[string]string {
		code, out, errOut := run(t, false, windowsHostPID, append([]string{"lint", "-o", "json", "--fail-on", "none"}, append(args, "-")...)...)
		if code != ExitClean {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var doc struct {
			Findings []struct{ Rule, Severity string }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range doc.Findings {
			got[f.Rule] = f.Severity
		}
		return got
	}
	before := severities()
	if before["windows-forbidden-field"] != "warning" || before["missing-spec-os"] == "" {
		t.Fatalf("without a config: %v; the test needs a warning finding of windows-forbidden-field and a missing-spec-os finding", before)
	}
	after := severities("--config", cfg)
	if after["windows-forbidden-field"] != "info" || after["missing-spec-os"] != "info" {
		t.Errorf("configured info: %v", after)
	}
	for _, tt := range []struct {
		failOn string
		code   int
	}{{"warning", ExitClean}, {"info", ExitFindings}} {
		if code, _, errOut := run(t, false, windowsHostPID, "lint", "--config", cfg, "--fail-on", tt.failOn, "-"); code != tt.code {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s", tt.failOn, code, tt.code, errOut)
		}
	}
	_, out, _ := run(t, false, windowsHostPID, "lint", "--config", cfg, "-o", "sarif", "--fail-on", "none", "-")
	var sarif struct {
		Runs []struct {
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 2 {
		t.Fatalf("SARIF: %v, %+v", err, sarif)
	}
	for _, r := range sarif.Runs[0].Results {
		if r.Level != "note" {
			t.Errorf("SARIF result %s: level %q, want note", r.RuleID, r.Level)
		}
	}
}
