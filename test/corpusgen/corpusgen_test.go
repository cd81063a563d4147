package corpusgen

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/manifest"
)

func stream(t *testing.T, seed uint64, n int) ([]byte, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := WriteStream(&buf, Options{Objects: n, Seed: seed, Unreadable: true})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := stream(t, 42, 300)
	b, _ := stream(t, 42, 300)
	c, _ := stream(t, 43, 300)
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different corpora")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same corpus")
	}
}

// TestCorpusShape: the corpus looks like the brief's hybrid estate and
// every object loads, except the few mistakes that are load errors.
func TestCorpusShape(t *testing.T) {
	t.Parallel()
	const n = 3000
	data, st := stream(t, 1, n)
	if st.Objects != n || int64(len(data)) < st.Bytes {
		t.Fatalf("stats %+v for %d bytes", st, len(data))
	}
	if avg := st.Bytes / int64(n); avg < 2300 || avg > 2900 {
		t.Errorf("average object is %d bytes, want about 2.6 KB", avg)
	}
	if share := float64(st.Windows) / float64(st.Workloads); share < 0.28 || share > 0.39 {
		t.Errorf("%.2f of the workloads are Windows, want about a third", share)
	}
	for _, kind := range []string{"Deployment", "DaemonSet", "StatefulSet", "Service", "ConfigMap", "RuntimeClass"} {
		if st.Kinds[kind] == 0 {
			t.Errorf("no %s in %v", kind, st.Kinds)
		}
	}
	ins, _ := manifest.Inputs([]string{"-"}, bytes.NewReader(data))
	objs, errs := manifest.ReadAll(ins)
	if len(objs) != n {
		t.Errorf("read %d objects back, want %d", len(objs), n)
	}
	for _, e := range errs {
		if !strings.Contains(e.Msg, "placeholder") && !strings.Contains(e.Msg, "spec.replicas") {
			t.Errorf("unexpected load error: %v", e)
		}
	}
	if len(errs) == 0 || len(errs) > n/100 {
		t.Errorf("%d load errors, want a few (the deliberate mistakes)", len(errs))
	}
}

// TestReadable: without Unreadable, every document loads (kube-score
// refuses a whole run over one that does not).
func TestReadable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := WriteStream(&buf, Options{Objects: 3000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	ins, _ := manifest.Inputs([]string{"-"}, &buf)
	objs, errs := manifest.ReadAll(ins)
	if len(objs) != 3000 || len(errs) > 0 {
		t.Errorf("%d objects, errors %v", len(objs), errs)
	}
}

func TestWriteFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := WriteFiles(dir, Options{Objects: 500, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "apps", "*", "*.yaml"))
	if st.Objects != 500 || st.Files != len(files)+1 || st.Files < 100 {
		t.Errorf("stats %+v, %d app files", st, len(files))
	}
	ins, ierrs := manifest.Inputs([]string{dir}, nil)
	if len(ierrs) > 0 {
		t.Fatal(ierrs[0])
	}
	objs, _ := manifest.ReadAll(ins)
	if len(objs) != 500 {
		t.Errorf("read %d objects back, want 500", len(objs))
	}
}
