package chart

import (
	"strings"
	"testing"
)

// FuzzLineMap: any template and output map without a panic, and every
// mapped line is a line of the template.
func FuzzLineMap(f *testing.F) {
	f.Add("a: {{ .Values.a }}\n  {{- toYaml .Values.b | nindent 2 }}\n", "a: 1\n  x: y\n")
	f.Add("{{", "}}\n\n")
	f.Fuzz(func(t *testing.T, tmpl, out string) {
		m := newLineMap("t.yaml", []byte(tmpl), out)
		n := strings.Count(tmpl, "\n") + 1
		for i := range strings.Count(out, "\n") + 2 {
			if _, l, _, ok := m.origin(i, ""); ok && (l < 1 || l > n) {
				t.Fatalf("line %d maps to %d, outside the template's %d lines", i, l, n)
			}
		}
	})
}
