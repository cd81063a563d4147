package fix

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// text is one document's lines, without line breaks. Each line keeps its
// own break (LF, CRLF, a lone CR, or none at the end), so a file with mixed
// breaks keeps them all; new lines take the break of the line they follow.
type text struct {
	lines []string
	ends  []string // each line's break
	nl    string   // the document's most common break
	step  int      // indentation step of the document
	// seqIndented is true when block lists are indented under their key
	// ("key:\n  - a") rather than level with it ("key:\n- a").
	seqIndented bool
	json        bool // the document is JSON: edits are rendered as JSON
}

func newText(s string) *text {
	t := &text{step: 2}
	counts := map[string]int{}
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			t.lines, t.ends = append(t.lines, s), append(t.ends, "")
			break
		}
		end := s[i : i+1]
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			end = "\r\n"
		}
		t.lines, t.ends = append(t.lines, s[:i]), append(t.ends, end)
		counts[end]++
		if s = s[i+len(end):]; s == "" {
			break
		}
	}
	t.nl = "\n"
	for _, e := range []string{"\r\n", "\r"} {
		if counts[e] > counts[t.nl] {
			t.nl = e
		}
	}
	return t
}

func (t *text) String() string {
	var b strings.Builder
	for i, l := range t.lines {
		b.WriteString(l)
		b.WriteString(t.ends[i])
	}
	return b.String()
}

// insert puts new lines after line index at (at = -1 inserts first).
func (t *text) insert(at int, lines []string) {
	nl := t.nl
	if at >= 0 && t.ends[at] != "" {
		nl = t.ends[at]
	}
	ends := make([]string, len(lines))
	for i := range ends {
		ends[i] = nl
	}
	if at >= 0 && t.ends[at] == "" { // after the last line, which had no break
		t.ends[at], ends[len(ends)-1] = nl, ""
	}
	t.lines = append(t.lines[:at+1], append(lines, t.lines[at+1:]...)...)
	t.ends = append(t.ends[:at+1], append(ends, t.ends[at+1:]...)...)
}

// remove deletes lines from..to inclusive.
func (t *text) remove(from, to int) {
	if t.ends[to] == "" && from > 0 {
		t.ends[from-1] = ""
	}
	t.lines = append(t.lines[:from], t.lines[to+1:]...)
	t.ends = append(t.ends[:from], t.ends[to+1:]...)
}

// col is the byte offset in its line of a yaml.v3 position: yaml.v3
// counts columns in characters, so text with multi-byte characters
// earlier on the line would otherwise be cut in the wrong place.
func (t *text) col(n *yaml.Node) int { return byteCol(t.lines[n.Line-1], n.Column) }

func byteCol(line string, column int) int {
	i := 0
	for c := 1; c < column && i < len(line); c++ {
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return i
}

func indentOf(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// end returns the last line of a block entry that starts at line start and
// whose owner (its key, or its list dash) sits at column owner (0-based).
// Lines indented deeper belong to it; so do list dashes level with a key
// whose value is such a list (seqLevel).
func (t *text) end(start, owner int, seqLevel bool) int {
	last := start
	for i := start + 1; i < len(t.lines); i++ {
		trim := strings.TrimSpace(t.lines[i])
		if trim == "" {
			continue
		}
		ind := indentOf(t.lines[i])
		if trim[0] == '#' && ind <= owner {
			continue
		}
		if ind < owner || (ind == owner && !(seqLevel && strings.HasPrefix(trim, "-"))) {
			break
		}
		last = i
	}
	return last
}

// entryEnd is the last line of the mapping entry with key k.
func (t *text) entryEnd(k, v *yaml.Node) int {
	owner := k.Column - 1
	seqLevel := v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && v.Column-1 == owner
	return t.end(k.Line-1, owner, seqLevel)
}

// itemEnd is the last line of item i of block sequence s.
func (t *text) itemEnd(s *yaml.Node, i int) int {
	return t.end(t.itemStart(s, i), s.Column-1, false)
}

// itemStart is the line of item i's dash.
func (t *text) itemStart(s *yaml.Node, i int) int {
	l := s.Content[i].Line - 1
	for l > 0 && !strings.HasPrefix(strings.TrimSpace(t.lines[l]), "-") {
		l--
	}
	return l
}

// detectStyle learns the document's indentation step and list style.
func (t *text) detectStyle(n *yaml.Node) {
	var walk func(n *yaml.Node) bool
	found := false
	walk = func(n *yaml.Node) bool {
		if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle != 0 {
			for _, c := range n.Content {
				if walk(c) {
					return true
				}
			}
			return false
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Style&yaml.FlowStyle != 0 || v.Line == k.Line {
				if walk(v) {
					return true
				}
				continue
			}
			switch v.Kind {
			case yaml.MappingNode:
				if d := v.Column - k.Column; d > 0 && !found {
					t.step, found = d, true
				}
			case yaml.SequenceNode:
				t.seqIndented = v.Column > k.Column
				return found
			}
			if walk(v) {
				return true
			}
		}
		return false
	}
	walk(n)
}

// scalarEnd is the column just past the scalar that starts at col on line.
func scalarEnd(line string, col int, flow bool) int {
	if col >= len(line) {
		return col
	}
	switch q := line[col]; q {
	case '"', '\'':
		for i := col + 1; i < len(line); i++ {
			switch {
			case q == '"' && line[i] == '\\':
				i++
			case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
				i++
			case line[i] == q:
				return i + 1
			}
		}
		return len(line)
	}
	end := len(line)
	if i := strings.Index(line[col:], " #"); i >= 0 {
		end = col + i
	}
	if flow {
		if i := strings.IndexAny(line[col:end], ",}]"); i >= 0 {
			end = col + i
		}
	}
	return col + len(strings.TrimRight(line[col:end], " "))
}

// closingPos finds the bracket that closes the flow collection opening at
// line, col (0-based), across lines.
func (t *text) closingPos(line, col int) (int, int, error) {
	depth := 0
	for l := line; l < len(t.lines); l++ {
		s := t.lines[l]
		start := 0
		if l == line {
			start = col
		}
		for i := start; i < len(s); i++ {
			switch c := s[i]; c {
			case '"', '\'':
				i = scalarEnd(s, i, true) - 1
			case '#':
				if i == 0 || s[i-1] == ' ' {
					i = len(s)
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return l, i, nil
				}
			}
		}
	}
	return 0, 0, fmt.Errorf("unclosed flow collection at line %d", line+1)
}

// closing finds the bracket that closes the flow collection opening at col.
func closing(line string, col int) (int, error) {
	depth := 0
	for i := col; i < len(line); i++ {
		switch c := line[i]; c {
		case '"', '\'':
			i = scalarEnd(line, i, true) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("flow collection at column %d spans lines; winkube fix edits only single-line flow collections", col+1)
}
