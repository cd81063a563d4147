package fidelity

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/simulate"
)

func TestFixtureRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs := NewCase(3, 5)
	real := []Outcome{{Pod: "p0", Message: "0/1 nodes are available: ..."}}
	path, err := WriteFailure(dir, cs, real, &simulate.Result{}, []string{"p0: first line\n    second line"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "seed-3-case-5.yaml" {
		t.Errorf("fixture written to %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# seed: 3\n", "# case: 5\n", "-fidelity.seed=3 -fidelity.case=5", "#   p0: first line\n#       second line\n", "#   p0: pending"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("fixture lacks %q", want)
		}
	}
	loaded, err := LoadFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 1 {
		t.Fatalf("loaded %d fixtures, want 1", len(loaded))
	}
	got := loaded[0]
	if got.Seed != 3 || got.Index != 5 || got.Source != path {
		t.Errorf("loaded seed %d case %d source %s", got.Seed, got.Index, got.Source)
	}
	if d := cmp.Diff(string(caseYAML(t, cs)), string(caseYAML(t, got))); d != "" {
		t.Errorf("the loaded case differs from the written one (-written +loaded):\n%s", d)
	}
}
