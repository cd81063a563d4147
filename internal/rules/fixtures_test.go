package rules

import (
	"testing"

	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/rules/rulestest"
)

// Fixtures live in testdata/<rule-id>/*.yaml; rulestest describes their
// "# want" comments and headers and runs them (rulestest.Runner). Beside a fixture whose findings carry
// fixes, <name>.yaml.golden is the fixture with every fix of the rule
// applied (safe or not) until nothing changes, as go/analysis's
// RunWithSuggestedFixes checks; -update rewrites the goldens.

// testClusters are the cluster profiles fixtures can choose.
var testClusters = rulestest.Clusters

func TestFixtures(t *testing.T) {
	t.Parallel()
	runner := rulestest.Runner{LoadError: LoadError, Images: fixtureImages, Update: golden.Update()}
	for _, r := range Suite() {
		if r == WindowsTemplateNotRendered {
			// Only a chart fires it, and fixtures are manifests: its
			// fixtures are the charts of internal/chart/testdata,
			// linted in internal/chart and internal/cli.
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			runner.Run(t, "testdata", r)
		})
	}
}
