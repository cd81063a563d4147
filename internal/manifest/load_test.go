package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"b.yaml":             configMap,
		"a.yml":              configMap,
		"sub/c.json":         `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}`,
		"sub/README.md":      "not read",
		".git/d.yaml":        "not read",
		"empty/notes.txt":    "no manifests here",
		"sub/.hidden/e.yaml": "not read",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	ins, errs := Inputs([]string{dir, "-", missing, filepath.Join(dir, "empty")}, strings.NewReader(configMap))
	var got []string
	for _, in := range ins {
		got = append(got, strings.TrimPrefix(in.Name, dir+"/"))
		if in.JSON != strings.HasSuffix(in.Name, ".json") {
			t.Errorf("%s: JSON = %v", in.Name, in.JSON)
		}
	}
	if diff := cmp.Diff([]string{"a.yml", "b.yaml", "sub/c.json", "<stdin>"}, got); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	var gotErrs []string
	for _, e := range errs {
		gotErrs = append(gotErrs, strings.TrimPrefix(e.File, dir+"/")+": "+e.Msg)
	}
	want := []string{
		"missing.yaml: cannot read: no such file or directory",
		"empty: folder holds no *.yaml, *.yml or *.json files",
	}
	if diff := cmp.Diff(want, gotErrs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	objs, rerrs := ReadAll(ins)
	if len(rerrs) > 0 || len(objs) != 4 {
		t.Errorf("ReadAll: %d objects, errors %v", len(objs), rerrs)
	}
}

// TestEachUnreadable: a file that disappears between Inputs and reading
// is an error, not a silent skip.
func TestEachUnreadable(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "gone.yaml")
	if err := os.WriteFile(p, []byte(configMap), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, _ := Inputs([]string{p}, nil)
	os.Remove(p)
	err := Each(ins[0], func(Document) { t.Error("read a document of a missing file") })
	if err == nil || err.File != p || !strings.Contains(err.Msg, "no such file") {
		t.Errorf("got %v", err)
	}
}
