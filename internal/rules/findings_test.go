package rules

import (
	"io"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// findings runs rules over a manifest given as text on cluster c (nil:
// no cluster profile) and returns what they report.
func findings(t *testing.T, c *cluster.Cluster, doc string, rs ...*rule.Rule) []rule.Finding {
	t.Helper()
	return runRules(t, c, "-", strings.NewReader(doc), rs)
}

// fileFindings runs rules over a manifest file on cluster c.
func fileFindings(t *testing.T, c *cluster.Cluster, path string, rs ...*rule.Rule) []rule.Finding {
	t.Helper()
	return runRules(t, c, path, nil, rs)
}

func runRules(t *testing.T, c *cluster.Cluster, path string, stdin io.Reader, rs []*rule.Rule) []rule.Finding {
	t.Helper()
	ins, errs := manifest.Inputs([]string{path}, stdin)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(t.Context(), ins, engine.Options{Rules: rs, Cluster: c, Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}
