package corpusgen

import (
	"bytes"
	"fmt"
	"strings"
)

// writer builds YAML text line by line; generated text is written
// directly, as people write it, rather than marshalled.
type writer struct{ b bytes.Buffer }

const spaces = "                                        "

// l writes one line at indent.
func (w *writer) l(indent int, s string) {
	w.b.WriteString(spaces[:indent])
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// f writes one formatted line at indent.
func (w *writer) f(indent int, format string, args ...any) {
	w.b.WriteString(spaces[:indent])
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// block writes a literal block scalar's lines at indent.
func (w *writer) block(indent int, text string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			w.b.WriteByte('\n')
			continue
		}
		w.l(indent, line)
	}
}

func (w *writer) bytes() []byte { return bytes.Clone(w.b.Bytes()) }

// meta writes metadata with the app's labels and a few annotations.
func (w *writer) meta(indent int, a app, annotations bool) {
	w.l(indent, "metadata:")
	w.f(indent+2, "name: %s", a.name)
	w.f(indent+2, "namespace: %s", a.team)
	w.l(indent+2, "labels:")
	w.labels(indent+4, a)
	if annotations {
		w.l(indent+2, "annotations:")
		w.f(indent+4, "owner: %s@example.com", a.team)
		w.f(indent+4, "description: %q", fmt.Sprintf("%s service of the %s team; pages on-call when down", a.name, a.team))
	}
}

func (w *writer) labels(indent int, a app) {
	w.f(indent, "app.kubernetes.io/name: %s", a.name)
	w.f(indent, "app.kubernetes.io/part-of: %s", a.team)
	w.l(indent, "app.kubernetes.io/managed-by: argocd")
	w.f(indent, "app.kubernetes.io/version: \"%d.%d.%d\"", 1+a.id%4, a.id%13, a.id%7)
}
