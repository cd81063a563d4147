package corpus

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

const realGolden = "testdata/real.golden"

// realCorpus is the copy of the real-world corpus kept in this package's
// testdata, with its sources and licences (testdata/real/NOTICE.md).
func realCorpus(t *testing.T) string {
	t.Helper()
	real := filepath.Join("testdata", "real")
	if info, err := os.Stat(filepath.Join(real, "SOURCES.tsv")); err != nil || info.IsDir() {
		t.Fatalf("the real corpus is missing: expected %s with its SOURCES.tsv", real)
	}
	return real
}

// TestRealCorpus lints every manifest of the real corpus with the whole
// suite on the reference cluster. Every file must yield objects or a
// load error, and the findings must match the golden file; after a rule
// change, review the difference and regenerate it:
//
//	go test ./internal/corpus -run TestRealCorpus -update
func TestRealCorpus(t *testing.T) {
	root := realCorpus(t)
	ins, errs := manifest.Inputs([]string{root}, nil)
	if len(errs) > 0 {
		t.Fatalf("reading the corpus: %v", errs[0])
	}
	if len(ins) < 100 {
		t.Fatalf("the corpus at %s has %d manifests; expected the 106 of SOURCES.tsv", root, len(ins))
	}
	suite := rules.Suite()
	res, err := engine.Run(context.Background(), ins, engine.Options{Rules: suite, Cluster: cluster.Reference(), Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	loadErrors := map[string]bool{}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Rule == engine.LoadErrorID {
			loadErrors[f.File] = true
		}
		rel, err := filepath.Rel(root, f.File)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("finding outside the corpus: %s", f.File)
		}
		f.File = filepath.ToSlash(rel)
	}
	for _, in := range ins {
		objs, _ := manifest.ReadAll([]manifest.Input{in})
		if len(objs) == 0 && !loadErrors[in.Name] {
			t.Errorf("%s: no objects and no load error: the file was skipped silently", in.Name)
		}
	}

	var got bytes.Buffer
	if err := report.Text(&got, &report.Report{Findings: res.Findings, Rules: suite, Files: res.Files, Objects: res.Objects}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, realGolden, got.Bytes())
}
