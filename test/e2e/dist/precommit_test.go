package dist

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCommitHook runs the winkube-lint hook of .pre-commit-hooks.yaml
// through Debian's pre-commit, as a user's repository would: pre-commit
// clones this repository at HEAD, builds it with `go install ./...` and runs
// the hook on the files given. A manifest with a Windows mistake fails the
// hook; a clean one passes.
func TestPreCommitHook(t *testing.T) {
	bin := tool(t, "pre-commit")
	root := repoRoot(t)
	gomodcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	user := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = user
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	bad, err := os.ReadFile(filepath.Join(root, "examples", "aspnet-legacy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: production}\n"
	for name, content := range map[string]string{"bad.yaml": string(bad), "good.yaml": good} {
		if err := os.WriteFile(filepath.Join(user, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", ".")
	home := t.TempDir()
	run := func(file string) (int, string) {
		cmd := exec.CommandContext(t.Context(), bin, "try-repo", root, "winkube-lint", "--files", file, "--color", "never")
		cmd.Dir = user
		cmd.Env = append(os.Environ(),
			"PRE_COMMIT_HOME="+home,
			// pre-commit sets its own GOPATH; keep the module cache shared
			// so the hook's build downloads nothing.
			"GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
			"GIT_AUTHOR_NAME=winkube test", "GIT_AUTHOR_EMAIL=test@winkube.invalid",
			"GIT_COMMITTER_NAME=winkube test", "GIT_COMMITTER_EMAIL=test@winkube.invalid")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatalf("pre-commit: %v\n%s", err, out)
		}
		return 0, string(out)
	}
	code, out := run("bad.yaml")
	if code == 0 || !strings.Contains(out, "Failed") || !strings.Contains(out, "bad.yaml:") {
		t.Fatalf("the hook passed a manifest with a Windows mistake (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "windows-forbidden-field") {
		t.Errorf("the hook's output names no winkube rule:\n%s", out)
	}
	if code, out := run("good.yaml"); code != 0 || !strings.Contains(out, "Passed") {
		t.Fatalf("the hook failed a clean manifest (exit %d):\n%s", code, out)
	}
}
