package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNotAnObject: every front-end that reads manifests treats YAML that is
// not a Kubernetes object (a Helm values.yaml) the same way: a load-error
// warning, an exit code that --fail-on decides, and exit 2 only for a file
// that cannot be read. audit reads live objects and policy export no
// manifests, so neither meets such input.
func TestNotAnObject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	values := writeFile(t, filepath.Join(dir, "values.yaml"), "replicaCount: 2\nimage:\n  repository: mcr.microsoft.com/windows/servercore\n  tag: ltsc2022\n")
	_, _, imageFlags := imagesEnv(t)
	const want = "values.yaml:1:1: warning: not a Kubernetes object: apiVersion or kind is missing [load-error]"
	for _, cmd := range [][]string{{"lint"}, {"fix"}, {"simulate"}, append([]string{"images"}, imageFlags...)} {
		name := cmd[0]
		for _, tt := range []struct {
			failOn string
			code   int
		}{{"error", ExitClean}, {"warning", ExitFindings}} {
			code, out, errOut := run(t, false, "", append(append([]string{}, cmd...), "--fail-on", tt.failOn, values)...)
			if code != tt.code || !strings.Contains(out+errOut, want) {
				t.Errorf("%s --fail-on %s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", name, tt.failOn, code, tt.code, want, out, errOut)
			}
		}
		if code, _, _ := run(t, false, "", append(append([]string{}, cmd...), filepath.Join(dir, "missing.yaml"))...); code != ExitError {
			t.Errorf("%s on a file that cannot be read: exit %d, want %d", name, code, ExitError)
		}
	}
}
