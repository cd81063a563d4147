package fix

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// fuzzValues are strings a plain scalar would misread somewhere.
var fuzzValues = []string{"windows", `C:\data`, "a: b", "x #y", "10.0", "héllo wörld", "- x", "{y}", "[z]", "'q'", `"d"`, "", " lead", "yes", "a,b", "*ref", "&anc", "!tag", "%p", "@at", "`bt`", "|", ">", "line\nbreak"}

// fuzzEdits are the edits the round trip tries, one kind per op.
func fuzzEdit(which uint8) rule.Edit {
	v := fuzzValues[int(which)%len(fuzzValues)]
	switch (which / uint8(len(fuzzValues))) % 4 {
	case 0:
		return set("spec.os.name", v)
	case 1:
		return set("metadata.labels[winkube.io/"+fuzzValues[int(which)%3]+"]", v)
	case 2:
		return add("spec.tolerations", map[string]any{"key": "os", "operator": "Equal", "value": v, "effect": "NoSchedule"})
	}
	return del("spec.securityContext.runAsUser")
}

// FuzzFixRoundTrip applies a fix to every object lint loads from any
// input: either the file is left byte for byte as it was (fix refused, or
// there was nothing to do), or the result splits into the same documents,
// the documents without an edit are byte-identical, and each edited object
// reads back with the intended field holding the intended value.
//
//	go test ./internal/fix -run '^$' -fuzz FuzzFixRoundTrip -fuzztime 1m
func FuzzFixRoundTrip(f *testing.F) {
	for _, pattern := range []string{"../rules/testdata/*/*.yaml", "../../examples/*.yaml", "testdata/hostile/*"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, uint8(len(p)))
		}
	}
	f.Add([]byte("apiVersion: v1\r\nkind: Pod\r\nmetadata: {name: a, labels: {x: y}}\r\nspec: {containers: [{name: c, image: i}]}\r\n"), uint8(1))
	f.Add([]byte("apiVersion: v1\rkind: Pod\rspec:\r  securityContext:\r    runAsUser: 1\r"), uint8(80))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: Pod, metadata: {name: é}}\n"), uint8(30))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > 1<<16 {
			return
		}
		docs, err := manifest.Split("f.yaml", data, false)
		if err != nil {
			return
		}
		var edits []Edit
		for _, d := range docs {
			objs, _ := manifest.Decode(d)
			for _, o := range objs {
				edits = append(edits, Edit{Doc: d.Index, Item: o.Item, Edit: fuzzEdit(which + uint8(len(edits)))})
			}
		}
		out, res := Apply(data, edits)
		if bytes.Equal(out, data) {
			for _, r := range res {
				if r.Changed {
					t.Fatalf("edit %v reported as made, the text did not change", r.Edit.Edit)
				}
			}
			return
		}
		checkRoundTrip(t, data, out, docs, res)
	})
}

func checkRoundTrip(t *testing.T, before, after []byte, docs []manifest.Document, res []Applied) {
	outDocs, err := manifest.Split("f.yaml", after, false)
	if err != nil || len(outDocs) != len(docs) {
		t.Fatalf("fixed text splits into %d documents (%v), want %d:\n%s", len(outDocs), err, len(docs), after)
	}
	changed := map[int][]Applied{}
	for _, r := range res {
		if r.Changed {
			changed[r.Doc] = append(changed[r.Doc], r)
		}
	}
	for i, d := range docs {
		b, a := before[d.Start:d.End], after[outDocs[i].Start:outDocs[i].End]
		if len(changed[i]) == 0 {
			if !bytes.Equal(a, b) {
				t.Fatalf("document %d has no edit but changed:\n%q\n->\n%q", i, b, a)
			}
			continue
		}
		var v any
		if err := yaml.Unmarshal(a, &v); err != nil {
			t.Fatalf("document %d does not parse after the fix: %v\n%s", i, err, a)
		}
		for _, r := range changed[i] {
			checkField(t, v, r, a)
		}
	}
}

// checkField checks the edited object holds the edit's intent.
func checkField(t *testing.T, doc any, r Applied, text []byte) {
	root, _ := doc.(map[string]any)
	if r.Item >= 0 {
		items := flattenValues(root, nil)
		if r.Item >= len(items) {
			t.Fatalf("item %d gone:\n%s", r.Item, text)
		}
		root, _ = items[r.Item].(map[string]any)
	}
	var cur any = root
	segs := parsePath(r.Path)
	for _, s := range segs[:len(segs)-1] {
		m, _ := cur.(map[string]any)
		cur = m[s.Name]
	}
	m, _ := cur.(map[string]any)
	last := segs[len(segs)-1].Name
	got, present := m[last]
	switch r.Op {
	case rule.Remove:
		if present {
			t.Fatalf("%s still present:\n%s", r.Path, text)
		}
	case rule.Set:
		if !sameJSON(got, r.Value) {
			t.Fatalf("%s = %#v, want %#v:\n%s", r.Path, got, r.Value, text)
		}
	case rule.Append:
		list, _ := got.([]any)
		for _, e := range list {
			if sameJSON(e, r.Value) {
				return
			}
		}
		t.Fatalf("%s = %#v lacks %#v:\n%s", r.Path, got, r.Value, text)
	}
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
