package manifest

import "strings"

// Flow collections that open and close on one line: [a, b], {a: b},
// nested. Multi-line flow (JSON files) goes to yaml.v3.

const maxFlowDepth = 100

// flow parses the collection opening at offset v and returns the offset
// after its closing bracket.
func (p *fastParser) flow(v, depth int) (*Node, int, bool) {
	if depth > maxFlowDepth {
		return nil, 0, false
	}
	seq := p.src[v] == '['
	closer := byte('}')
	kind := MappingNode
	if seq {
		closer, kind = ']', SequenceNode
	}
	n := p.node(kind, v)
	mark := len(p.stack)
	i := p.skipSpaces(v + 1)
	for {
		if i >= p.le {
			return nil, 0, false
		}
		if p.src[i] == closer {
			p.finish(n, mark)
			return n, i + 1, true
		}
		item, end, ok := p.flowItem(i, depth)
		if !ok || !seq && item.Value == "<<" && p.src[i] == '<' { // a merge key
			return nil, 0, false
		}
		i = p.skipSpaces(end)
		if !seq {
			// A key: ":" then the value. yaml.v3 allows "a":b after a
			// quoted key; a plain key stops only at ": ".
			if i >= p.le || p.src[i] != ':' || item.Kind != ScalarNode || p.duplicate(mark, item.Value) {
				return nil, 0, false
			}
			item.Tag = TagStr
			p.stack = append(p.stack, item)
			i = p.skipSpaces(i + 1)
			if i >= p.le || p.src[i] == ',' || p.src[i] == closer {
				return nil, 0, false // an empty value
			}
			if item, end, ok = p.flowItem(i, depth); !ok {
				return nil, 0, false
			}
			i = p.skipSpaces(end)
		}
		p.stack = append(p.stack, item)
		switch {
		case i < p.le && p.src[i] == ',':
			i = p.skipSpaces(i + 1)
		case i < p.le && p.src[i] == closer:
		default:
			return nil, 0, false
		}
	}
}

func (p *fastParser) skipSpaces(i int) int {
	for i < p.le && p.src[i] == ' ' {
		i++
	}
	return i
}

// flowItem parses a scalar or nested collection inside a flow collection.
func (p *fastParser) flowItem(i, depth int) (*Node, int, bool) {
	switch p.src[i] {
	case '[', '{':
		return p.flow(i, depth+1)
	case '"', '\'':
		return p.quoted(i)
	}
	if !plainStart(p.src, i, p.le, true) {
		return nil, 0, false
	}
	end := i
	for ; end < p.le; end++ {
		c := p.src[end]
		if c == ':' && (end+1 == p.le || p.src[end+1] == ' ') || strings.IndexByte(",?[]{}", c) >= 0 {
			break
		}
		if c == ' ' && end+1 < p.le && p.src[end+1] == '#' {
			return nil, 0, false // a comment: the collection goes on on the next line
		}
	}
	text := strings.TrimRight(p.src[i:end], " ")
	return p.scalar(plainTag(text), text, i), end, true
}
