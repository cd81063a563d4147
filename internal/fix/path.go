package fix

import (
	"strconv"
	"strings"
)

// segment is one step of an API-style field path: a field name, a map key
// in brackets, or a list index in brackets.
type segment struct {
	name    string
	bracket bool
}

func (s segment) index() (int, bool) {
	if !s.bracket {
		return 0, false
	}
	i, err := strconv.Atoi(s.name)
	return i, err == nil && i >= 0
}

func parsePath(p string) []segment {
	var segs []segment
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(segs, segment{name: p[1:], bracket: true})
			}
			segs = append(segs, segment{name: p[1:end], bracket: true})
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
