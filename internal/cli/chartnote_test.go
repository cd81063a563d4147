package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintChartWindowsTemplateNotRendered: a chart whose Windows DaemonSet
// is off by default (a mirror of secrets-store-csi-driver's
// windows.enabled) is not reported clean: lint names the template's
// guard line and the --set that renders it; --fail-on decides the exit;
// with the value on, the DaemonSet itself is checked instead.
func TestLintChartWindowsTemplateNotRendered(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "mirror-secrets-store")
	tmpl := filepath.Join(chart, "templates", "secrets-store-csi-driver-windows.yaml")
	want := tmpl + ":1: warning: Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard windows.enabled is false, so winkube checked none of it [windows-template-not-rendered]\n" +
		"    hint: lint again with --set windows.enabled=true to check it\n"
	tests := []struct {
		name  string
		args  []string
		found bool
		code  int
	}{
		{"defaults", nil, true, ExitClean},
		{"fail on warning", []string{"--fail-on", "warning"}, true, ExitFindings},
		{"value on", []string{"--set", "windows.enabled=true", "--fail-on", "error"}, false, ExitFindings},
		{"disabled", []string{"--config", writeConfig(t, "  disable: [windows-template-not-rendered]\n"), "--fail-on", "warning"}, false, ExitClean},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			code, stderr := runCLI(t.Context(), strings.NewReader(""), &out, append([]string{"lint", "-q", chart}, tt.args...)...)
			if got := strings.Contains(out.String(), want); got != tt.found {
				t.Errorf("finding shown %v, want %v:\n%s\nstderr: %s", got, tt.found, out.String(), stderr)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s\nstderr: %s", code, tt.code, out.String(), stderr)
			}
		})
	}
	// The severity is the config's, as any rule's.
	var out bytes.Buffer
	code, _ := runCLI(t.Context(), strings.NewReader(""), &out, "lint", "-q", chart, "--config", writeConfig(t, "  severity: {windows-template-not-rendered: error}\n"))
	if !strings.Contains(out.String(), tmpl+":1: error: Windows template") || code != ExitFindings {
		t.Errorf("exit %d, stdout:\n%s", code, out.String())
	}
}

// TestSimulateChartWindowsTemplateNotRendered: simulate renders charts
// too, and says which Windows template it could not simulate instead of
// failing or staying silent.
func TestSimulateChartWindowsTemplateNotRendered(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "mirror-newrelic")
	code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "simulate", chart)
	want := filepath.Join(chart, "templates", "kubelet", "daemonset-windows.yaml") + ":1:0: warning: Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard enableWindows is false, so winkube checked none of it [windows-template-not-rendered]"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if code != ExitClean {
		t.Errorf("exit %d, want %d:\n%s", code, ExitClean, stderr)
	}
}

// TestImagesChartWindowsTemplateNotRendered: images renders charts too and
// says which Windows template's images it never saw.
func TestImagesChartWindowsTemplateNotRendered(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "mirror-local-provisioner")
	_, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "images", "--offline", "--registry-cache", filepath.Join(t.TempDir(), "cache"), chart)
	want := filepath.Join(chart, "templates", "daemonset_windows.yaml") + ":2:0: warning: Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard enableWindows is false, so winkube checked none of it [windows-template-not-rendered]\n" +
		"    hint: lint again with --set enableWindows=true to check it\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestFixChartWithWindowsNote: a chart's note is no input problem for fix:
// fix refuses the chart as it refuses any, and does not fail on the note.
func TestFixChartWithWindowsNote(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "mirror-secrets-store")
	code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "fix", "-q", chart)
	if !strings.Contains(stderr, "fix does not edit a Helm chart or a kustomization") || strings.Contains(stderr, "renders nothing") || code != ExitError {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
