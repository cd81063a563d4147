package manifest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/test/corpusgen"
)

// diffTrees describes the first difference between two trees, or "".
func diffTrees(path string, a, b *Node) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		return ""
	case a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: yaml.v3 {kind %d tag %d %q at %d:%d, %d children}, fast {kind %d tag %d %q at %d:%d, %d children}",
			path, a.Kind, a.Tag, a.Value, a.Line, a.Column, len(a.Content), b.Kind, b.Tag, b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if d := diffTrees(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// checkFast parses data both ways. When the fast parser accepts it, the
// trees must be identical. It reports whether the fast parser accepted.
func checkFast(t *testing.T, name string, line int, data []byte) bool {
	t.Helper()
	fast, ok := parseFast(line, data)
	if !ok {
		return false
	}
	slow, err := parseSlow(name, line, data)
	if err != nil {
		t.Errorf("%s: the fast parser accepted what yaml.v3 refuses (%v):\n%s", name, err, data)
		return true
	}
	if d := diffTrees("", slow, fast); d != "" {
		t.Errorf("%s: trees differ at %s\n%s", name, d, data)
	}
	return true
}

// documents splits every file under dir into documents.
func documents(t *testing.T, dir string) []Document {
	t.Helper()
	var docs []Document
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		s := NewSplitter(p, f, false)
		for {
			doc, err := s.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return nil // binary fixtures
			}
			docs = append(docs, doc)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestFastParseFixtures compares the parsers on every rule fixture, the
// examples and the real corpus.
func TestFastParseFixtures(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"../rules/testdata", "../../examples", "../corpus/testdata/real"} {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("%s is missing: %v", dir, err)
		}
		docs := documents(t, dir)
		fast := 0
		for _, d := range docs {
			if checkFast(t, d.File, d.Line, d.Data) {
				fast++
			}
		}
		t.Logf("%s: the fast parser read %d of %d documents", dir, fast, len(docs))
	}
}

// TestFastParseGenerated: the generated benchmark corpus is entirely in
// the fast parser's subset, so benchmarks measure it.
func TestFastParseGenerated(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := corpusgen.WriteStream(&buf, corpusgen.Options{Objects: 600, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	s := NewSplitter("gen.yaml", &buf, false)
	for {
		doc, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !checkFast(t, "gen.yaml", doc.Line, doc.Data) {
			t.Errorf("gen.yaml:%d: the fast parser declined\n%s", doc.Line, doc.Data)
		}
	}
}

// TestFastParse: constructs the fast parser must read (identically to
// yaml.v3) and constructs it must leave to yaml.v3.
func TestFastParse(t *testing.T) {
	t.Parallel()
	read := map[string]string{
		"nested":          "a:\n  b:\n    c: 1\n  d: [x, \"y\", 'z']\ne: {f: g, h: [1, 2]}\n",
		"sequences":       "- a\n- - b\n  - c\n- d: 1\n  e: 2\n-\n  f: 3\n- # comment\n  g\n",
		"indentless":      "a:\n- 1\n- 2\nb: 3\nc:\n  - x\n",
		"empty values":    "a:\nb: # comment\n- \nc: ''\nd: \"\"\ne: []\nf: {}\n",
		"tags":            "i: 42\nneg: -7\nhex: 0x1F\noct: 0o17\nold: 0777\nf: 1.5\nexp: 1e3\ninf: .inf\nnan: .NaN\nb: true\nB: FALSE\nyes: yes\nn: null\nt: ~\nts: 2024-01-02\nv: 1.2.3\nq: 500m\nmem: 1Gi\nzero: 08\nbig: 123456789012345678901234\n",
		"plain text":      "url: http://example.com:8080/a#b\nimage: nginx:1.27\ntext: a b  c\nhash: a#b\ndash: -x\ncolon: ::x\nq: what?\nbr: a[0]{1}\n",
		"quoted":          "s: 'it''s # not a comment'\nd: \"tab\\there \\\"q\\\" \\\\ \\u00e9 \\x41 \\U0001F680 \\N\\_\\L\\P\\e\\0\"\n\"quoted key\": 1\n'single key': 2\n",
		"literal":         "a: |\n  line 1\n\n  line 3\n    indented\nb: |-\n  stripped\n\n\nc: |+\n  kept\n\n\nd: |2\n    two more\ne: x\n",
		"folded":          "a: >\n  one\n  two\n\n  three\n    more\n  four\nb: >-\n  x\n  y\nc: >+\n  z\n\n",
		"block blank":     "a: |\n\n  first after blank\n   \n  x\nb: |\n\n\nc: 1\n",
		"block at end":    "a: |\n  no newline",
		"comments":        "# head\na: 1 # line\n  # indented comment\nb:\n  # before\n  c: 2\n# tail\n",
		"unicode":         "name: caf\u00e9\nkey\u00e9: \u65e5\u672c \u8a9e # c\nl: [\u00e9, \"\u00e8\"]\n",
		"crlf":            "a: 1\r\nb:\r\n  - x\r\nc: |\r\n  l1\r\n  l2\r\n",
		"root sequence":   "- a: 1\n- b: 2\n",
		"root flow":       "{a: 1, \"b\": [2, 3], c: {d: e}}\n",
		"indented root":   "  a: 1\n  b: 2\n",
		"json line":       "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}\n",
		"trailing commas": "a: [1, 2, ]\nb: {c: d, }\n",
		"deep":            strings.Repeat("- ", 50) + "x\n",
		"scalar root":     "just text\n",
	}
	for name, text := range read {
		if !checkFast(t, name, 3, []byte(text)) {
			t.Errorf("%s: the fast parser declined\n%s", name, text)
		}
	}
	declined := map[string]string{
		"anchor":            "a: &x 1\nb: *x\n",
		"merge":             "a: {b: 1}\nc:\n  <<: {d: 2}\n",
		"tag":               "a: !!str 1\n",
		"complex key":       "? a\n: b\n",
		"multi-line plain":  "a: one\n  two\n",
		"multi-line quoted": "a: \"one\n  two\"\n",
		"multi-line flow":   "a: [1,\n  2]\n",
		"tab":               "a:\tb\n",
		"duplicate":         "a: 1\na: 2\n",
		"flow duplicate":    "a: {b: 1, b: 2}\n",
		"directive":         "%YAML 1.2\na: 1\n",
		"bad indentation":   "a:\n  b: 1\n c: 2\n",
		"mapping in value":  "a: b: c\n",
		"empty flow value":  "a: {b: }\n",
		"lone CR":           "a: 1\rb: 2\n",
		"comment only":      "# nothing\n",
		"escape newline":    "a: \"x\\\n  y\"\n",
		"bad escape":        "a: \"\\q\"\n",
		"surrogate escape":  "a: \"\\ud800\"\n",
		"zero indentation":  "a: |0\n  x\n",
		"long key":          strings.Repeat("k", 1100) + ": v\n",
		"BOM":               "\ufeffa: 1\n",
		"NEL":               "a: b\u0085c\n",
		"DEL":               "#\x7f000000\n00",   // found by FuzzFastParse
		"blank line deeper": "b: |\n    \n  y\n", // yaml.v3: did not find expected key
	}
	for name, text := range declined {
		if _, ok := parseFast(1, []byte(text)); ok {
			t.Errorf("%s: the fast parser accepted\n%s", name, text)
		}
	}
}

// TestScanText checks the word-at-a-time text check against the plain
// byte rule: every byte value, at every position within a word.
func TestScanText(t *testing.T) {
	t.Parallel()
	var nls []int32
	for c := range 256 {
		for pos := range 16 {
			data := []byte("abcdefghijklmnopqrstuvwx")
			data[pos] = byte(c)
			want := c >= 0x20 && c < 0x7F || c == '\n'
			ascii, ok := scanText(data, &nls)
			if ok != want || ok && !ascii {
				t.Errorf("byte %#x at %d: ok %v ascii %v, want ok %v", c, pos, ok, ascii, want)
			}
			if ok && c == '\n' && (len(nls) != 1 || nls[0] != int32(pos)) {
				t.Errorf("line break at %d recorded as %v", pos, nls)
			}
		}
	}
}
