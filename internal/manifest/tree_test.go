package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTreeDecodesAsData holds Decode over a Document's Tree (what fix
// hands the engine) to Decode over its Data (what lint reads, through the
// fast parser where it can), over the real corpus and this package's
// testdata: the same objects, every node at the same position.
func TestTreeDecodesAsData(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, root := range []string{filepath.Join("..", "corpus", "testdata", "real"), "testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) < 100 {
		t.Fatalf("found %d files; the real corpus is missing", len(paths))
	}
	trees := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := Split(p, data, false)
		if err != nil {
			continue
		}
		for _, d := range docs {
			if d.Err != nil {
				continue
			}
			tree, err := ParseTree(data[d.Start:d.End])
			if err != nil {
				continue // Decode reads Data and reports why, as lint does
			}
			want, wantErrs := Decode(d)
			d.Tree = tree
			got, gotErrs := Decode(d)
			trees++
			if diff := cmp.Diff(located(want), located(got)); diff != "" {
				t.Errorf("%s:%d: objects from the tree differ (-data +tree):\n%s", p, d.Line, diff)
			}
			if diff := cmp.Diff(messages(wantErrs), messages(gotErrs)); diff != "" {
				t.Errorf("%s:%d: problems from the tree differ (-data +tree):\n%s", p, d.Line, diff)
			}
		}
	}
	if trees < 200 {
		t.Errorf("compared %d documents; expected the corpus's 200 or more", trees)
	}
}

// located lists each object's nodes as value@line:col, in document order.
func located(objs []*Object) [][]string {
	var out [][]string
	for _, o := range objs {
		var ns []string
		var walk func(n *Node)
		walk = func(n *Node) {
			ns = append(ns, fmt.Sprintf("%s@%d:%d", n.Value, n.Line, n.Column))
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(o.Root)
		out = append(out, append([]string{o.Ref(), string(o.Root.AppendJSON(nil))}, ns...))
	}
	return out
}

func messages(errs []*Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
