package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixRefusesChart: fix on a chart changes nothing, exits 2, names the
// template line of each fixable finding and, where the template takes the
// field from .Values, the values-file text.
func TestFixRefusesChart(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "app")
	code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "fix", "-q", chart, "--set", "nodeSelector=null")
	tmpl := filepath.Join(chart, "templates", "deployment.yaml")
	for _, want := range []string{
		tmpl + ":20:7: ", // nodeSelector: in the template
		"change: set spec.template.spec.nodeSelector[kubernetes.io/os] windows",
		"or in the values file:\n        nodeSelector:\n          kubernetes.io/os: windows\n",
		"fix does not edit a Helm chart or a kustomization",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
}

// TestLintChartTextShowsBothPositions: lint of a chart prints the template
// position and the rendered one under it.
func TestLintChartTextShowsBothPositions(t *testing.T) {
	t.Parallel()
	chart := filepath.Join("..", "chart", "testdata", "app")
	var out bytes.Buffer
	code, stderr := runCLI(t.Context(), strings.NewReader(""), &out, "lint", "-q", chart, "--set", "hostNetwork=true", "--release-name", "rel")
	tmpl := filepath.Join(chart, "templates", "deployment.yaml")
	want := tmpl + ":18:7: error: hostNetwork: true on a Windows pod"
	rendered := "    rendered: " + tmpl + " (rendered):20:7\n"
	if i := strings.Index(out.String(), want); i < 0 || !strings.HasPrefix(out.String()[strings.Index(out.String()[i:], "\n")+i+1:], rendered) {
		t.Errorf("stdout lacks %q followed by %q:\n%s\nstderr: %s", want, rendered, out.String(), stderr)
	}
	if code != ExitFindings {
		t.Errorf("exit %d, want %d", code, ExitFindings)
	}
}
