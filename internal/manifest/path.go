package manifest

import (
	"strconv"
	"strings"
)

// Locate returns the line and column of the field named by path, written
// as the API server writes field paths ("spec.containers[0].image",
// "spec.nodeSelector[kubernetes.io/os]"). When the field is absent it
// returns the position of its deepest present ancestor, which is where an
// edit would add it.
func (o *Object) Locate(path string) (line, col int) {
	n := o.Root
	line, col = n.Line, n.Column
	for _, seg := range SplitPath(path) {
		var next, key *Node
		switch {
		case seg.Bracket && n.Kind == SequenceNode:
			if i, ok := seg.Index(); ok && i < len(n.Content) {
				next, key = n.Content[i], n.Content[i]
			}
		case n.Kind == MappingNode:
			next, key = n.Get(seg.Name), n.Key(seg.Name)
		}
		if next == nil {
			return line, col
		}
		n = next
		line, col = key.Line, key.Column
	}
	return line, col
}

// Segment is one step of a field path: a field name, or a list index or
// map key written in brackets.
type Segment struct {
	Name    string
	Bracket bool
}

// Index returns the segment as a list index, when it is one.
func (s Segment) Index() (int, bool) {
	if !s.Bracket {
		return 0, false
	}
	i, err := strconv.Atoi(s.Name)
	return i, err == nil && i >= 0
}

// SplitPath splits a field path written as the API server writes them.
func SplitPath(p string) []Segment {
	var segs []Segment
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(segs, Segment{Name: p[1:], Bracket: true})
			}
			segs = append(segs, Segment{Name: p[1:end], Bracket: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, Segment{Name: p[:end]})
			p = p[end:]
		}
	}
	return segs
}
