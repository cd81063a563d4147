package dist

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// versionInfo is `winkube version -o json`.
type versionInfo struct {
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	Module     string `json:"module"`
	Kubernetes string `json:"kubernetes"`
}

func runVersion(t *testing.T, bin string) versionInfo {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("%s version -o json: %v", bin, err)
	}
	var v versionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if v.Module != "github.com/winkube/winkube" || v.Kubernetes == "" {
		t.Errorf("version -o json = %+v: want the module path and the Kubernetes range", v)
	}
	short, err := exec.CommandContext(t.Context(), bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if !strings.HasPrefix(string(short), "winkube "+v.Version) {
		t.Errorf("--version printed %q, want it to start with %q", short, "winkube "+v.Version)
	}
	return v
}

// TestVersionFromClone: a binary built in the clone names the commit it
// was built from (the toolchain's VCS stamp; the machine's go env may turn
// stamping off, so the build asks for it).
func TestVersionFromClone(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD in %s: %v (this test needs the git clone)", root, err)
	}
	bin := filepath.Join(t.TempDir(), "winkube")
	build := exec.CommandContext(t.Context(), "go", "build", "-buildvcs=true", "-o", bin, "./cmd/winkube")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	v := runVersion(t, bin)
	if want := strings.TrimSpace(string(head)); v.Revision != want {
		t.Errorf("revision %q, want HEAD %q", v.Revision, want)
	}
	if v.Version == "" || v.Version == "(devel)" {
		t.Errorf("version %q: a build from a clone carries a pseudo-version", v.Version)
	}
}

// TestVersionGoInstall installs the module at a version, as
// `go install github.com/winkube/winkube/cmd/winkube@v1.2.3` does, from a
// module proxy on disk holding HEAD's committed tree (dependencies come
// from the usual proxy), and checks that the binary prints that version
// without any -ldflags. The version names HEAD's commit, so a module cache
// never holds two trees under one version; the test removes it afterwards.
func TestVersionGoInstall(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD in %s: %v (this test needs the git clone)", root, err)
	}
	const modPath = "github.com/winkube/winkube"
	modVersion := "v0.99.0-test." + strings.TrimSpace(string(head))
	t.Cleanup(func() { forgetModule(t, modPath, modVersion) })
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modPath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, modVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromVCS(zf, module.Version{Path: modPath, Version: modVersion}, root, "HEAD", ""); err != nil {
		t.Fatalf("module zip of HEAD: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := exec.Command("git", "-C", root, "show", "HEAD:go.mod").Output()
	if err != nil {
		t.Fatalf("git show HEAD:go.mod: %v", err)
	}
	for name, data := range map[string]string{
		"list":               modVersion + "\n",
		modVersion + ".info": `{"Version":"` + modVersion + `","Time":"2026-11-27T00:00:00Z"}`,
		modVersion + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := t.TempDir()
	install := exec.CommandContext(t.Context(), "go", "install", modPath+"/cmd/winkube@"+modVersion)
	install.Dir = t.TempDir()
	install.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOPROXY=file://"+proxy+","+strings.TrimSpace(string(upstream)),
		"GONOSUMDB="+modPath,
		"GOFLAGS=",
		"GOWORK=off",
	)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/winkube@%s: %v\n%s", modPath, modVersion, err, out)
	}
	if v := runVersion(t, filepath.Join(gobin, "winkube")); v.Version != modVersion {
		t.Errorf("installed binary says version %q, want %q", v.Version, modVersion)
	}
}

// forgetModule removes one version of a module from the module cache (its
// tree is read-only there).
func forgetModule(t *testing.T, path, version string) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Errorf("go env GOMODCACHE: %v", err)
		return
	}
	cache := strings.TrimSpace(string(out))
	tree := filepath.Join(cache, path+"@"+version)
	_ = filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(tree); err != nil {
		t.Errorf("removing %s: %v", tree, err)
	}
	downloads, _ := filepath.Glob(filepath.Join(cache, "cache", "download", path, "@v", version+".*"))
	for _, f := range downloads {
		if err := os.Remove(f); err != nil {
			t.Errorf("removing %s: %v", f, err)
		}
	}
}
