package dist

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"gopkg.in/yaml.v3"
)

// TestGoreleaserCheck runs goreleaser's own validation of .goreleaser.yaml.
func TestGoreleaserCheck(t *testing.T) {
	t.Parallel()
	bin := tool(t, "goreleaser")
	// goreleaser reads the release's owner and name from the origin remote,
	// which a clone has and a copy may not: check in a repository that has
	// the project's remote.
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".goreleaser.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/winkube/winkube.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.CommandContext(t.Context(), bin, "check", "--config", ".goreleaser.yaml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
}

// goreleaserConfig is the part of .goreleaser.yaml the krew manifest
// depends on.
type goreleaserConfig struct {
	Builds []struct {
		Binary string   `yaml:"binary"`
		Goos   []string `yaml:"goos"`
		Goarch []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
}

// archiveName renders the archive name goreleaser gives a platform.
func (c goreleaserConfig) archiveName(t *testing.T, tag, goos, goarch string) string {
	t.Helper()
	a := c.Archives[0]
	name := a.NameTemplate
	for k, v := range map[string]string{"{{ .Tag }}": tag, "{{ .Os }}": goos, "{{ .Arch }}": goarch} {
		name = strings.ReplaceAll(name, k, v)
	}
	if strings.Contains(name, "{{") {
		t.Fatalf("archive name_template %q uses fields this test does not know", a.NameTemplate)
	}
	format := a.Formats[0]
	for _, o := range a.FormatOverrides {
		if o.Goos == goos {
			format = o.Formats[0]
		}
	}
	return name + "." + format
}

// krewPlugin mirrors krew's index.krew.dev v1alpha2 Plugin; decoding is
// strict, so a misspelt field fails the test.
type krewPlugin struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Version          string `yaml:"version"`
		Homepage         string `yaml:"homepage"`
		ShortDescription string `yaml:"shortDescription"`
		Description      string `yaml:"description"`
		Caveats          string `yaml:"caveats,omitempty"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selector"`
			URI    string `yaml:"uri"`
			Sha256 string `yaml:"sha256"`
			Bin    string `yaml:"bin"`
			Files  []struct {
				From string `yaml:"from"`
				To   string `yaml:"to"`
			} `yaml:"files,omitempty"`
		} `yaml:"platforms"`
	} `yaml:"spec"`
}

// TestKrewManifest renders .krew.yaml as krew-release-bot does and checks
// it against krew's Plugin schema and against the archives goreleaser
// makes: one platform per build target, each naming its archive and the
// binary inside it.
func TestKrewManifest(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var gr goreleaserConfig
	decodeFile(t, filepath.Join(root, ".goreleaser.yaml"), &gr, false)
	if len(gr.Builds) != 1 || len(gr.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: want one build and one archive, got %d and %d", len(gr.Builds), len(gr.Archives))
	}
	const tag = "v0.1.0"
	archives := map[string][]byte{} // uri -> content, for the sha256s
	funcs := template.FuncMap{"addURIAndSha": func(uri, tagName string) string {
		uri = strings.ReplaceAll(uri, "{{ .TagName }}", tagName)
		content := []byte("archive " + uri)
		archives[uri] = content
		sum := sha256.Sum256(content)
		return fmt.Sprintf("uri: %s\n    sha256: %s", uri, hex.EncodeToString(sum[:]))
	}}
	src, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.New(".krew.yaml").Funcs(funcs).Parse(string(src))
	if err != nil {
		t.Fatalf(".krew.yaml does not parse as a template: %v", err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, map[string]string{"TagName": tag}); err != nil {
		t.Fatalf("rendering .krew.yaml: %v", err)
	}
	var p krewPlugin
	dec := yaml.NewDecoder(&out)
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("rendered .krew.yaml is not a krew Plugin: %v", err)
	}
	if p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || p.Kind != "Plugin" {
		t.Errorf("apiVersion/kind %s/%s, want krew.googlecontainertools.github.com/v1alpha2/Plugin", p.APIVersion, p.Kind)
	}
	if p.Metadata.Name != "winkube" || p.Spec.Version != tag {
		t.Errorf("name %q version %q, want winkube %s", p.Metadata.Name, p.Spec.Version, tag)
	}
	if p.Spec.ShortDescription == "" || p.Spec.Description == "" || !strings.HasPrefix(p.Spec.Homepage, "https://") {
		t.Error("shortDescription, description and an https homepage are required")
	}
	want := map[string]bool{}
	b := gr.Builds[0]
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			want[goos+"/"+goarch] = true
		}
	}
	for _, pl := range p.Spec.Platforms {
		goos, goarch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		key := goos + "/" + goarch
		if !want[key] {
			t.Errorf("platform %s: not built by goreleaser, or listed twice", key)
			continue
		}
		delete(want, key)
		wantURI := "https://github.com/winkube/winkube/releases/download/" + tag + "/" + gr.archiveName(t, tag, goos, goarch)
		if pl.URI != wantURI {
			t.Errorf("platform %s: uri %s, want goreleaser's archive %s", key, pl.URI, wantURI)
		}
		sum := sha256.Sum256(archives[pl.URI])
		if pl.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("platform %s: sha256 does not belong to its uri", key)
		}
		bin := b.Binary
		if goos == "windows" {
			bin += ".exe"
		}
		if pl.Bin != bin {
			t.Errorf("platform %s: bin %q, want %q (the binary in goreleaser's archive)", key, pl.Bin, bin)
		}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Errorf("goreleaser builds %s but .krew.yaml has no platform for it", k)
	}
}

func decodeFile(t *testing.T, path string, v any, strict bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(strict)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestReleaseArchivesCarryLicence: every file pattern of the release
// archives matches a file of the repository, and the licence is among them
// (Apache-2.0 §4(a): a copy of the licence goes with every distribution).
func TestReleaseArchivesCarryLicence(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Archives) == 0 {
		t.Fatal(".goreleaser.yaml has no archives")
	}
	for _, a := range cfg.Archives {
		licence := false
		for _, pattern := range a.Files {
			matches, err := filepath.Glob(filepath.Join(root, pattern))
			if err != nil || len(matches) == 0 {
				t.Errorf("archive file pattern %q matches nothing in the repository", pattern)
			}
			for _, m := range matches {
				licence = licence || filepath.Base(m) == "LICENSE"
			}
		}
		if !licence {
			t.Errorf("archive files %v do not include LICENSE", a.Files)
		}
	}
}
