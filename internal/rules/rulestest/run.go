package rulestest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// Runner runs a rule over its fixtures, as analysistest.Run runs an
// analyzer over its testdata: every dir/<rule-id>/*.yaml is linted with
// the rule alone, its findings must match the fixture's "# want" lines
// exactly, the rule needs a firing and a quiet fixture, and where its
// findings carry fixes the fixture with every fix applied (safe or not,
// until nothing changes) must equal <name>.yaml.golden, after which the
// rule has nothing left to fix (analysistest.RunWithSuggestedFixes).
type Runner struct {
	// LoadError is the input rule, run beside the rule under test so that
	// a fixture may want its findings too; its fixtures fix nothing.
	LoadError *rule.Rule
	// Images answers registry questions for the fixtures that ask
	// ("# resolve-images"); nil resolves nothing.
	Images func(t *testing.T, path string) rule.ImageLookup
	// Update rewrites the goldens instead of comparing them.
	Update bool
}

// Run runs r over its fixtures in dir with the default Runner.
func Run(t *testing.T, dir string, r *rule.Rule) { Runner{}.Run(t, dir, r) }

// Run runs r over its fixtures in dir/<r.ID>.
func (rn Runner) Run(t *testing.T, dir string, r *rule.Rule) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, r.ID, "*.yaml"))
	var firing, quiet int
	for _, f := range files {
		if rn.check(t, r, f) {
			firing++
		} else {
			quiet++
		}
	}
	if firing == 0 || quiet == 0 {
		t.Errorf("rule %s needs at least one firing and one non-firing fixture in %s (has %d and %d)", r.ID, filepath.Join(dir, r.ID), firing, quiet)
	}
}

func (rn Runner) images(t *testing.T, path string) rule.ImageLookup {
	if rn.Images == nil {
		return nil
	}
	return rn.Images(t, path)
}

// check runs the rule over one fixture and compares its findings with the
// wants; it reports whether the fixture wants any.
func (rn Runner) check(t *testing.T, r *rule.Rule, path string) (fired bool) {
	t.Helper()
	fx, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rs := []*rule.Rule{r}
	if rn.LoadError != nil && r != rn.LoadError {
		rs = append([]*rule.Rule{rn.LoadError}, r)
	}
	ins, errs := manifest.Inputs([]string{path}, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(context.Background(), ins, engine.Options{Rules: rs, Cluster: fx.Cluster, Model: fx.Model, Images: rn.images(t, path)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Suppressed || (f.Rule != r.ID && (rn.LoadError == nil || f.Rule != rn.LoadError.ID)) {
			continue
		}
		if !fx.Match(f.Line, f.Message) {
			t.Errorf("%s:%d:%d: unexpected %s finding: %s", path, f.Line, f.Column, f.Rule, f.Message)
		}
	}
	for _, w := range fx.Unmatched() {
		t.Errorf("%s:%d: no finding matched %q", path, w.Line, w.RE)
	}
	rn.checkFixes(t, r, fx, path)
	return len(fx.Wants) > 0
}

// checkFixes applies the rule's fixes to the fixture and compares the
// result with its golden; after them the rule has nothing left to fix.
func (rn Runner) checkFixes(t *testing.T, r *rule.Rule, fx *Fixture, path string) {
	t.Helper()
	if r == rn.LoadError {
		return // it fixes nothing, and fix refuses its unreadable documents by design
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Rules: []*rule.Rule{r}, Cluster: fx.Cluster, Model: fx.Model, Images: rn.images(t, path)}
	res, err := fix.Converge(context.Background(), []fix.File{{Name: path, Data: data}}, opts, fix.Policy{Unsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	fr := res.Files[0]
	for _, f := range fr.Failures {
		t.Errorf("%s: fix failed: %s", path, f)
	}
	golden, changed := path+".golden", fr.Changed(data)
	if rn.Update {
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
