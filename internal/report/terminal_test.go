package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/winkube/winkube/internal/rule"
)

// hostile holds what a cluster or registry could put in a string to act
// on a terminal: an OSC 52 clipboard write, a screen clear, a title
// change, an 8-bit CSI, a forged line, a bidi override, invalid UTF-8.
const hostile = "ok\x1b]52;c;aGk=\x07\x1b[2J\x1b]0;title\x07\u009b31m\r\nforged: line\u202edesrever\u2028\xff\x00\x7f"

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, tabs\tand ünïcödé", "plain text, tabs\tand ünïcödé"},
		{"\x1b[2J", `\x1b[2J`},
		{"a\r\nb", `a\x0d\x0ab`},
		{"\u009b", `\x9b`},
		{"\u202e", `\u202e`},
		{"\xff", `\xff`},
		{"\ufffd stays", "\ufffd stays"},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := CleanLines("a\x1b\nb"); got != "a\\x1b\nb" {
		t.Errorf("CleanLines kept %q", got)
	}
}

// CheckTerminalSafe fails t when out holds a byte or rune a terminal acts
// on other than the line feeds the renderer writes itself.
func checkTerminalSafe(t *testing.T, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if (r == utf8.RuneError && !strings.HasPrefix(out[i:], "\ufffd")) || dangerous(r) {
			t.Fatalf("output carries %q at byte %d:\n%s", r, i, out)
		}
	}
}

// fill sets every string reachable in v (a pointer) to s: the attack
// covers each field a renderer could print, present and future.
func fill(v reflect.Value, s string, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fill(v.Elem(), s, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), s, depth+1)
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(s)
		}
	case reflect.Slice:
		if v.Len() == 0 && v.CanSet() && v.Type().Elem().Kind() != reflect.Uint8 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			fill(v.Index(i), s, depth+1)
		}
	}
}

// TestTextRenderersNeutraliseControls: every string field of a finding
// carries escape sequences; no text renderer lets one through.
func TestTextRenderersNeutraliseControls(t *testing.T) {
	var f rule.Finding
	fill(reflect.ValueOf(&f).Elem(), hostile, 0)
	f.Suppressed = false
	f.Line, f.Column = 3, 4
	f.Object = nil
	r := &Report{Findings: []rule.Finding{f, f, f, f}}
	for _, format := range []string{"text", "github"} {
		var b bytes.Buffer
		if err := Write(&b, format, r, Options{}); err != nil {
			t.Fatal(err)
		}
		t.Run(format, func(t *testing.T) { checkTerminalSafe(t, b.String()) })
	}
}

// FuzzClean: whatever a cluster or registry sends, the cleaned text holds
// nothing a terminal acts on.
func FuzzClean(f *testing.F) {
	f.Add(hostile)
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for i, r := range out {
			if r == '\t' {
				continue
			}
			if (r == utf8.RuneError && !strings.HasPrefix(out[i:], "\ufffd")) || dangerous(r) {
				t.Fatalf("Clean(%q) = %q keeps %q", s, out, r)
			}
		}
		if !needsCleaning(s) && out != s {
			t.Fatalf("Clean changed %q, which needs no cleaning, to %q", s, out)
		}
	})
}
