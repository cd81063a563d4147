package rules

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules/rulestest"
)

// Fixtures live in testdata/<rule-id>/*.yaml; rulestest describes their
// "# want" comments and headers.

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
	return len(fx.Wants) > 0
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
