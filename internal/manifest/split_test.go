package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// splitAll runs a Splitter over text with the given document limit and
// returns "line: data" or "line: error" per document.
func splitAll(t *testing.T, text string, isJSON bool, limit int) []string {
	t.Helper()
	s := NewSplitter("f.yaml", strings.NewReader(text), isJSON)
	if limit > 0 {
		s.limit = limit
	}
	var got []string
	for i := 0; ; i++ {
		doc, err := s.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			return append(got, "stop: "+err.Error())
		}
		if doc.Index != i {
			t.Errorf("document %d has Index %d", i, doc.Index)
		}
		if doc.Err != nil {
			got = append(got, fmt.Sprintf("%03d: %v", doc.Line, doc.Err))
			continue
		}
		got = append(got, fmt.Sprintf("%03d: %s", doc.Line, doc.Data))
	}
}

func TestSplitter(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70<<10) // longer than the read buffer
	tests := []struct {
		name, text string
		json       bool
		limit      int
		want       []string
	}{
		{name: "separators", text: "a: 1\n---\nb: 2\n--- # comment\n# only comments\n---\n\nc: 3",
			want: []string{"001: a: 1\n", "003: b: 2\n", "007: \nc: 3"}},
		{name: "leading separator", text: "---\na: 1\n", want: []string{"002: a: 1\n"}},
		{name: "separator lookalikes", text: "a: |\n  ---x\n----\n", want: []string{"001: a: |\n  ---x\n----\n"}},
		{name: "content after separator", text: "a: 1\n--- |\n  text\n", want: []string{"001: a: 1\n", "002:     |\n  text\n"}},
		{name: "document end", text: "a: 1\n...\nb: 2\n... # done\n", want: []string{"001: a: 1\n", "003: b: 2\n"}},
		{name: "CRLF", text: "a: 1\r\n---\r\nb: 2\r\n...\r\n", want: []string{"001: a: 1\r\n", "003: b: 2\r\n"}},
		{name: "byte order mark", text: "\xef\xbb\xbfa: 1\n", want: []string{"001: a: 1\n"}},
		{name: "json is one document", text: "{\"a\":\n\"x\"}\n---\n", json: true, want: []string{"001: {\"a\":\n\"x\"}\n---\n"}},
		{name: "binary is an error of its document only", text: "a: 1\n---\nb: \x00\n---\nc: 3\n",
			want: []string{"001: a: 1\n", "003: f.yaml:3:4: binary content (NUL byte) (winkube reads YAML and JSON text files; remove binary files from the input)", "005: c: 3\n"}},
		{name: "lone CR", text: "a: 1\r---\rb: 2\r", want: []string{"001: a: 1\n", "003: b: 2\n"}},
		{name: "mixed line breaks", text: "a: 1\r\n---\nb: 2\r---\r\nc: 3", want: []string{"001: a: 1\r\n", "003: b: 2\n", "005: c: 3"}},
		{name: "oversized document is skipped", limit: 20, text: "a: 1\n---\nb: 1234567890\nc: 1234567890\n---\nd: 4\n",
			want: []string{"001: a: 1\n", "003: f.yaml:3: document is larger than 20 bytes (split it into smaller documents)", "006: d: 4\n"}},
		{name: "oversized line is skipped", limit: 20, text: "a: 1\n---\nb: " + long + "\nc: 3\n---\nd: 4\n",
			want: []string{"001: a: 1\n", "003: f.yaml:3: document is larger than 20 bytes (split it into smaller documents)", "006: d: 4\n"}},
		{name: "oversized last line", limit: 20, text: "b: " + long,
			want: []string{"001: f.yaml:1: document is larger than 20 bytes (split it into smaller documents)"}},
		{name: "default limit", text: "b: " + long + "\n", want: []string{"001: b: " + long + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := splitAll(t, tt.text, tt.json, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitterMegabyteMessage(t *testing.T) {
	t.Parallel()
	s := NewSplitter("f.yaml", nil, false)
	if got, want := s.tooLarge(7).Msg, "document is larger than 64 MiB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestUTF16 reads the UTF-16 files Windows PowerShell writes, with a
// character outside the BMP to exercise surrogate pairs.
func TestUTF16(t *testing.T) {
	t.Parallel()
	const text = "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: caf\u00e9\r\n  labels: {a: \"\U0001F680\"}\r\n  name: dup\r\n"
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		var buf bytes.Buffer
		buf.Write(order.AppendUint16(nil, 0xFEFF))
		for _, u := range utf16.Encode([]rune(text)) {
			buf.Write(order.AppendUint16(nil, u))
		}
		s := NewSplitter("f.yaml", &buf, false)
		doc, err := s.Next()
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		if got := string(doc.Data); got != text {
			t.Errorf("%v: decoded %q, want %q", order, got, text)
		}
		_, errs := Decode(doc)
		if len(errs) != 1 || errs[0].Line != 6 || errs[0].Column != 3 {
			t.Errorf("%v: got errors %v, want the duplicate name at 6:3", order, errs)
		}
	}
}

func TestUTF16Surrogates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		units []uint16
		want  string
	}{
		{"pair", []uint16{0xD83D, 0xDE80, 'x'}, "\U0001F680x"},
		{"lone high", []uint16{0xD83D, 'x'}, "\uFFFDx"},
		{"lone low", []uint16{0xDE80, 'x'}, "\uFFFDx"},
		{"high at end", []uint16{'x', 0xD83D}, "x\uFFFD"},
	}
	for _, tt := range tests {
		b := []byte{0xFF, 0xFE}
		for _, u := range tt.units {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
		b = append(b, 'z') // an odd trailing byte is dropped
		doc, err := NewSplitter("f", bytes.NewReader(b), false).Next()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if got := string(doc.Data); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
