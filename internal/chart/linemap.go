package chart

import (
	"bytes"
	"strings"
)

// A lineMap maps each line of a template's rendered output to the
// template line that produced it. Text outside actions is copied by the
// template engine verbatim, indentation included, so a rendered line is
// matched to the next template line (in order, skipping branches not
// taken) whose text before its first action it begins with, or which it
// equals when the line has no action. A rendered line no literal matches
// came out of an action (toYaml, include): it maps to the first
// output-producing action after the last matched line.
type lineMap struct {
	file string
	src  [][]byte
	to   []int // rendered line (0-based) -> template line (0-based), -1 if unknown
	col  []int // the column there, 0 to keep the rendered column
}

func newLineMap(file string, tmpl []byte, out string) *lineMap {
	m := &lineMap{file: file, src: bytes.Split(tmpl, []byte("\n"))}
	lines := strings.Split(out, "\n")
	m.to = make([]int, len(lines))
	m.col = make([]int, len(lines))
	cursor, last := 0, -1
	for i, l := range lines {
		m.to[i] = -1
		if strings.TrimSpace(l) == "" {
			continue
		}
		if j := m.match(l, cursor); j >= 0 {
			m.to[i], cursor, last = j, j+1, j
			continue
		}
		if j := m.emitter(last + 1); j >= 0 {
			m.to[i] = j
			m.col[i] = bytes.Index(m.src[j], []byte("{{")) + 1
		} else if last >= 0 {
			m.to[i] = last
		}
	}
	return m
}

// match finds the first template line from cursor whose literal text the
// rendered line reproduces.
func (m *lineMap) match(rendered string, cursor int) int {
	r := strings.TrimRight(rendered, " \t\r")
	for j := cursor; j < len(m.src); j++ {
		t := m.src[j]
		k := bytes.Index(t, []byte("{{"))
		if k < 0 {
			if lit := bytes.TrimRight(t, " \t\r"); len(bytes.TrimSpace(lit)) > 0 && string(lit) == r {
				return j
			}
			continue
		}
		lit := bytes.TrimRight(t[:k], " \t")
		if len(bytes.TrimSpace(lit)) > 0 && strings.HasPrefix(r, string(lit)) {
			return j
		}
	}
	return -1
}

// controlWords open actions that print nothing themselves.
var controlWords = []string{"if ", "else", "end", "with ", "range ", "define ", "/*", "$", "- if ", "- else", "- end", "- with ", "- range ", "- define ", "- /*", "- $"}

// emitter is the first template line from j holding an action that prints
// (an include, a toYaml, a value), not a control action.
func (m *lineMap) emitter(j int) int {
	for ; j < len(m.src); j++ {
		t := m.src[j]
		for rest := t; ; {
			k := bytes.Index(rest, []byte("{{"))
			if k < 0 {
				break
			}
			rest = rest[k+2:]
			act := strings.TrimLeft(string(rest), " ")
			if !printsNothing(act) {
				return j
			}
		}
	}
	return -1
}

func printsNothing(act string) bool {
	for _, w := range controlWords {
		if strings.HasPrefix(act, w) {
			return true
		}
	}
	return false
}

// origin is the manifest.Origin of the rendered input.
func (m *lineMap) origin(line int, _ string) (string, int, int, bool) {
	if line < 1 || line > len(m.to) || m.to[line-1] < 0 {
		return "", 0, 0, false
	}
	col := m.col[line-1]
	if col == 0 {
		// A literal line keeps its indentation: the rendered column holds.
		col = -1
	}
	return m.file, m.to[line-1] + 1, col, true
}
