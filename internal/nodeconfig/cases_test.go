package nodeconfig

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// caseOptions is a case's options.json.
type caseOptions struct {
	BuildNumber     int    `json:"buildNumber"`
	ContainerdMajor int    `json:"containerdMajor"`
	PodCIDR         string `json:"podCIDR"`
	ServiceCIDR     string `json:"serviceCIDR"`
	Root            bool   `json:"root"` // the case folder stands for C:\
}

// runCase validates every file of a case folder and renders the findings
// one per line, with paths relative to the folder.
func runCase(t *testing.T, dir string) string {
	t.Helper()
	var co caseOptions
	raw, err := os.ReadFile(filepath.Join(dir, "options.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &co); err != nil {
		t.Fatalf("%s/options.json: %v", dir, err)
	}
	opts := Options{BuildNumber: co.BuildNumber, ContainerdMajor: co.ContainerdMajor, Model: winsupport.Default()}
	if co.PodCIDR != "" {
		opts.PodCIDR = netip.MustParsePrefix(co.PodCIDR)
	}
	if co.ServiceCIDR != "" {
		opts.ServiceCIDR = netip.MustParsePrefix(co.ServiceCIDR)
	}
	if co.Root {
		opts.Root = dir
	}
	var files []*File
	var findings []rule.Finding
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "options.json" || d.Name() == "want.golden" || d.Name() == "SOURCES.tsv" || strings.HasSuffix(d.Name(), ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := Parse(p, data)
		if err != nil {
			for _, le := range loadErrorsOf(err) {
				findings = append(findings, InputFinding(le))
			}
			return nil
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	findings = append(findings, Validate(files, nil, opts)...)
	lines := make([]string, len(findings))
	for i, f := range findings {
		rel, _ := filepath.Rel(dir, f.File)
		lines[i] = fmt.Sprintf("%s:%d:%d: %s %s: %s", filepath.ToSlash(rel), f.Line, f.Column, f.Severity, f.Rule, f.Message)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func loadErrorsOf(err error) []*LoadError {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*LoadError
		for _, e := range j.Unwrap() {
			out = append(out, loadErrorsOf(e)...)
		}
		return out
	}
	if le, ok := err.(*LoadError); ok {
		return []*LoadError{le}
	}
	return []*LoadError{{Msg: err.Error()}}
}

// TestCases checks every case folder against its want.golden: the
// findings, their positions and wording (go test -update rewrites them).
func TestCases(t *testing.T) {
	for _, root := range []string{"testdata/cases", "testdata/realworld"} {
		dirs, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			dir := filepath.Join(root, d.Name())
			t.Run(dir, func(t *testing.T) {
				golden.Check(t, filepath.Join(dir, "want.golden"), []byte(runCase(t, dir)))
			})
		}
	}
}

// TestEveryRuleFires: each node rule fires in some case, so none is dead.
func TestEveryRuleFires(t *testing.T) {
	fired := map[string]bool{}
	dirs, _ := filepath.Glob("testdata/cases/*")
	for _, dir := range dirs {
		for _, line := range strings.Split(runCase(t, dir), "\n") {
			for _, r := range Rules() {
				if strings.Contains(line, " "+r.ID+": ") {
					fired[r.ID] = true
				}
			}
		}
	}
	for _, r := range Rules() {
		if !fired[r.ID] {
			t.Errorf("rule %s fires in no case under testdata/cases", r.ID)
		}
	}
}
