package fix_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// BenchmarkConvergeRealCorpus is `winkube fix --unsafe` over the real
// corpus (internal/corpus/testdata/real, its sources and licences in
// NOTICE.md there): every pass lints the files and applies the fixes.
func BenchmarkConvergeRealCorpus(b *testing.B) {
	var files []fix.File
	root := filepath.Join("..", "corpus", "testdata", "real")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifest(p) {
			return err
		}
		data, err := os.ReadFile(p)
		files = append(files, fix.File{Name: p, Data: data})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(files) < 100 {
		b.Fatalf("found %d files under %s; the real corpus is missing", len(files), root)
	}
	opts := engine.Options{Rules: rules.Suite(), Cluster: cluster.Reference(), Model: winsupport.Default(), Workers: 1}
	changed := 0
	b.ReportAllocs()
	for b.Loop() {
		res, err := fix.Converge(b.Context(), files, opts, fix.Policy{Unsafe: true})
		if err != nil {
			b.Fatal(err)
		}
		changed = 0
		for i, fr := range res.Files {
			if fr.Changed(files[i].Data) {
				changed++
			}
		}
	}
	if changed == 0 {
		b.Fatal("no file changed: the benchmark measures nothing")
	}
	b.ReportMetric(float64(changed), "files-fixed")
}
