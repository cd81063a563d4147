package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func runNode(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	return run(t, false, "", append([]string{"nodeconfig"}, args...)...)
}

// TestNodeConfigGenerateThenValidate: generate's output validates clean
// with every cross-file option, and exit codes follow the lint contract.
func TestNodeConfigGenerateThenValidate(t *testing.T) {
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "node.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: WindowsNode\nwindowsBuild: ltsc2025\ncontainerdVersion: 1.7.27\ncni: calico-vxlan\npodCIDR: 10.244.0.0/16\nserviceCIDR: 10.96.0.0/12\nsourceVip: 10.244.7.2\n")
	out := filepath.Join(dir, "node")
	if code, _, e := runNode(t, "generate", "-f", input, "--out-dir", out); code != ExitClean {
		t.Fatalf("generate: exit %d: %s", code, e)
	}
	code, o, e := runNode(t, "validate", "--root", out, "--windows-build", "10.0.26100.4652", "--containerd-version", "1.7.27",
		"--pod-cidr", "10.244.0.0/16", "--service-cidr", "10.96.0.0/12", "--fail-on", "info", "-o", "json", out)
	if code != ExitClean {
		t.Fatalf("validate generated: exit %d\n%s%s", code, o, e)
	}
	var rep struct {
		Summary struct{ Files int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(o), &rep); err != nil || rep.Summary.Files != 4 {
		t.Errorf("json report: files %d, err %v:\n%s", rep.Summary.Files, err, o)
	}
}

func TestNodeConfigExitCodes(t *testing.T) {
	bad := filepath.Join("..", "nodeconfig", "testdata", "cases", "kubelet-bad")
	if code, o, _ := runNode(t, "validate", bad); code != ExitFindings || !strings.Contains(o, "[kubelet-windows-invalid-option]") {
		t.Errorf("findings: exit %d, want %d:\n%s", code, ExitFindings, o)
	}
	if code, _, _ := runNode(t, "validate", "--fail-on", "none", bad); code != ExitClean {
		t.Errorf("--fail-on none: exit %d", code)
	}
	if code, _, e := runNode(t, "validate", "--pod-cidr", "nope", bad); code != ExitError || !strings.Contains(e, "--pod-cidr") {
		t.Errorf("bad flag: exit %d: %s", code, e)
	}
	if code, _, e := runNode(t, "generate", "-f", "missing.yaml", "--out-dir", t.TempDir()); code != ExitError || !strings.Contains(e, "missing.yaml") {
		t.Errorf("missing input: exit %d: %s", code, e)
	}
	cfg := writeFile(t, filepath.Join(t.TempDir(), "winkube.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  disable: [kubelet-windows-invalid-option]\n  severity: {kubelet-runtime-endpoint: warning}\n")
	code, o, _ := runNode(t, "validate", "--config", cfg, "--fail-on", "error", bad)
	if strings.Contains(o, "kubelet-windows-invalid-option") || !strings.Contains(o, "warning: containerRuntimeEndpoint") {
		t.Errorf("config disable/severity not applied (exit %d):\n%s", code, o)
	}
}
