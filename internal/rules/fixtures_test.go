package rules

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules/rulestest"
)

// Fixtures live in testdata/<rule-id>/*.yaml; rulestest describes their
// "# want" comments and headers. Beside a fixture whose findings carry
// fixes, <name>.yaml.golden is the fixture with every fix of the rule
// applied (safe or not) until nothing changes, as go/analysis's
// RunWithSuggestedFixes checks; -update rewrites the goldens.

var update = flag.Bool("update", false, "rewrite the fix goldens, testdata/<rule-id>/*.yaml.golden")

// testClusters are the cluster profiles fixtures can choose.
var testClusters = rulestest.Clusters

// checkFixture runs one rule over one fixture file and compares findings
// with the wants.
func checkFixture(t *testing.T, r *rule.Rule, path string) (fired bool) {
	t.Helper()
	fx, err := rulestest.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rs := []*rule.Rule{LoadError}
	if r != LoadError {
		rs = append(rs, r)
	}
	ins, errs := manifest.Inputs([]string{path}, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(context.Background(), ins, engine.Options{Rules: rs, Cluster: fx.Cluster, Model: fx.Model})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Suppressed || (f.Rule != r.ID && f.Rule != LoadError.ID) {
			continue
		}
		if !fx.Match(f.Line, f.Message) {
			t.Errorf("%s:%d:%d: unexpected %s finding: %s", path, f.Line, f.Column, f.Rule, f.Message)
		}
	}
	for _, w := range fx.Unmatched() {
		t.Errorf("%s:%d: no finding matched %q", path, w.Line, w.RE)
	}
	checkFixes(t, r, fx, path)
	return len(fx.Wants) > 0
}

// checkFixes applies the rule's fixes to the fixture and compares the
// result with its golden; after them the rule has nothing left to fix.
func checkFixes(t *testing.T, r *rule.Rule, fx *rulestest.Fixture, path string) {
	t.Helper()
	if r == LoadError {
		return // it fixes nothing, and fix refuses its unreadable documents by design
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Rules: []*rule.Rule{r}, Cluster: fx.Cluster, Model: fx.Model}
	res, err := fix.Converge(context.Background(), []fix.File{{Name: path, Data: data}}, opts, fix.Policy{Unsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	fr := res.Files[0]
	for _, f := range fr.Failures {
		t.Errorf("%s: fix failed: %s", path, f)
	}
	golden, changed := path+".golden", fr.Changed(data)
	if *update {
		updateGolden(t, golden, fr.After, changed)
		return
	}
	want, err := os.ReadFile(golden)
	switch {
	case !changed && err == nil:
		t.Errorf("%s: %s fixes nothing here, yet there is a golden; run go test ./internal/rules -update", golden, r.ID)
	case changed && err != nil:
		t.Errorf("%s: %s's fixes change the fixture and there is no golden; run go test ./internal/rules -update and review it", path, r.ID)
	case changed && !bytes.Equal(want, fr.After):
		t.Errorf("%s: the fixed fixture differs from the golden (-golden +fixed):\n%s", path, cmp.Diff(string(want), string(fr.After)))
	}
	if !changed {
		return
	}
	again, err := engine.Run(context.Background(), []manifest.Input{manifest.BytesInput(path, fr.After)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Findings {
		if f.Fix != nil && !f.Suppressed {
			t.Errorf("%s.golden:%d: %s still has a fix to make: %s", path, f.Line, r.ID, f.Fix.Title)
		}
	}
}

func updateGolden(t *testing.T, golden string, fixed []byte, changed bool) {
	t.Helper()
	if !changed {
		if err := os.Remove(golden); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(golden, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, r := range Suite() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			files, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*.yaml"))
			var firing, quiet int
			for _, f := range files {
				if checkFixture(t, r, f) {
					firing++
				} else {
					quiet++
				}
			}
			if firing == 0 || quiet == 0 {
				t.Errorf("rule %s needs at least one firing and one non-firing fixture in testdata/%s (has %d and %d)", r.ID, r.ID, firing, quiet)
			}
		})
	}
}
