package manifest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fuzzSeeds returns the rule fixtures, the examples and a few documents
// chosen to reach the corners of the YAML grammar.
func fuzzSeeds(f *testing.F) [][]byte {
	f.Helper()
	var seeds [][]byte
	for _, pattern := range []string{"../rules/testdata/*/*.yaml", "../../examples/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, b)
		}
	}
	return append(seeds, []byte(billionLaughs),
		[]byte("a: |2-\n   x\n  y\n\n\nb: >+\n  folded\n   more\n\n  last\n\n"),
		[]byte("- - a\n  - b\n- c: [1, 2.5, {d: e}]\n  f: 'it''s'\n  g: \"\\u00e9\\x41\\n\"\n"),
		[]byte("k:\n- x\n-\n- # c\n  y\nl: ~\nm: 0o17\nn: -0b101\no: .inf\np: 2001-12-14\nq: null\n"),
		[]byte("\xef\xbb\xbfa: caf\xc3\xa9 # c\r\nb: \"x\"\r\n"),
	)
}

// warmPlans works out the decoder's plan of every type the typed kinds
// reach. Plans are built on first use; built during fuzzing, they would
// be coverage that the next run of the same input does not have, and the
// fuzzer would spend its minimizing time chasing it.
func warmPlans() {
	seen := map[*plan]bool{}
	var walk func(p *plan)
	walk = func(p *plan) {
		if seen[p] {
			return
		}
		seen[p] = true
		if e := p.elemPlan(); e != nil {
			walk(e)
		}
		for _, f := range p.fieldMap() {
			walk(f.plan)
		}
	}
	for _, newObj := range typedKinds {
		walk(planOf(reflect.TypeOf(newObj()).Elem()))
	}
}

// FuzzDecode: no input may panic or hang the loader, and every error it
// reports has a position in the file.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, false)
	}
	warmPlans()
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		s := NewSplitter("fuzz.yaml", bytes.NewReader(data), isJSON)
		for {
			doc, err := s.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if e, ok := err.(*Error); !ok || e.Line < 1 {
					t.Fatalf("splitter error without a line: %v", err)
				}
				return
			}
			objs, errs := Decode(doc)
			for _, e := range errs {
				if e.File != "fuzz.yaml" || e.Line < doc.Line || e.Msg == "" {
					t.Fatalf("error without a position in the document at line %d: %+v", doc.Line, e)
				}
			}
			for _, o := range objs {
				if o.Root == nil || o.Root.Kind != MappingNode {
					t.Fatalf("object without a mapping root: %+v", o)
				}
				o.Workload()
				o.Locate("spec.template.spec.containers[0].image")
			}
		}
	})
}

// FuzzFastParse: whenever the fast parser accepts a document, yaml.v3
// accepts it too and produces the same tree, positions and tags included.
func FuzzFastParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, "fuzz.yaml", 1, data)
	})
}

// FuzzSplit: the splitter never panics, and the byte ranges it gives fix
// are in order, inside the input, and hold each document's text.
//
//	go test ./internal/manifest -run '^$' -fuzz FuzzSplit -fuzztime 1m
func FuzzSplit(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, false)
	}
	f.Add([]byte("a: 1\r---\rb: 2\r\n--- {c: 3}\n...\nd: \x00\n---\ne: 4"), false)
	f.Add([]byte("{\"a\": \"---\"}\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		docs, err := Split("f.yaml", data, isJSON)
		if err != nil {
			t.Fatalf("Split of bytes failed: %v", err)
		}
		// The ranges are offsets in the text Split read: UTF-16 input is
		// decoded first, as fix decodes it before editing.
		if dec := utf16Source(bufio.NewReader(bytes.NewReader(data))); dec != nil {
			if data, err = io.ReadAll(dec); err != nil {
				t.Fatal(err)
			}
		}
		prev := int64(0)
		for i, d := range docs {
			if d.Index != i || d.Start < prev || d.End < d.Start || d.End > int64(len(data)) {
				t.Fatalf("document %d: index %d, range %d..%d after %d, input %d bytes", i, d.Index, d.Start, d.End, prev, len(data))
			}
			prev = d.End
			text := data[d.Start:d.End]
			if d.Err != nil || bytes.HasPrefix(text, []byte("---")) || d.Start == 0 && bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
				continue // a carried "---" line is blanked, a byte order mark dropped
			}
			want := bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\x00\x01")), []byte("\r"), []byte("\n"))
			want = bytes.ReplaceAll(want, []byte("\x00\x01"), []byte("\r\n"))
			if !bytes.Equal(d.Data, want) {
				t.Fatalf("document %d: Data %q, range holds %q", i, d.Data, text)
			}
		}
	})
}
