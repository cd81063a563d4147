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
	for _, seg := range splitPath(path) {
		var next, key *Node
		switch {
		case seg.index && n.Kind == SequenceNode:
			if i, err := strconv.Atoi(seg.name); err == nil && i >= 0 && i < len(n.Content) {
				next, key = n.Content[i], n.Content[i]
			}
		case n.Kind == MappingNode:
			next, key = n.Get(seg.name), n.Key(seg.name)
		}
		if next == nil {
			return line, col
		}
		n = next
		line, col = key.Line, key.Column
	}
	return line, col
}

type segment struct {
	name  string
	index bool // written in brackets: a list index or a map key
}

func splitPath(p string) []segment {
	var segs []segment
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(segs, segment{name: p[1:], index: true})
			}
			segs = append(segs, segment{name: p[1:end], index: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, segment{name: p[:end]})
			p = p[end:]
		}
	}
	return segs
}
