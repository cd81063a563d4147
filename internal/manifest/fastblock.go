package manifest

// Block structure: the node at an offset of the current line, block
// mappings and sequences. Each returns with the parser on the next content
// line after the node (or at the end), or false to decline.

// block parses the node that starts at offset at of the current line.
// parent is the indentation of the enclosing block collection (-1 at the
// root): a scalar's continuation lines would be indented more than it.
func (p *fastParser) block(at, parent int) (*Node, bool) {
	if p.depth++; p.depth > maxFastDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	switch c := p.src[at]; {
	case c == '-' && p.isEntry(at):
		return p.sequence(at)
	case c == '[' || c == '{' || c == '|' || c == '>':
		return p.inline(at, parent)
	}
	key, after, isKey, ok := p.key(at)
	switch {
	case !ok:
		return nil, false
	case isKey:
		return p.mapping(at, key, after)
	}
	return p.inline(at, parent)
}

// isEntry reports whether a block sequence entry ("- " or "-" at the end
// of the line) starts at offset at.
func (p *fastParser) isEntry(at int) bool {
	return p.src[at] == '-' && (at+1 == p.le || p.src[at+1] == ' ')
}

// mapping parses a block mapping whose first key, already read, starts
// at offset at; its value follows offset after.
func (p *fastParser) mapping(at int, key *Node, after int) (*Node, bool) {
	m := at - p.ls // the indentation of the keys; "- " prefixes are ASCII
	n := p.node(MappingNode, at)
	mark := len(p.stack)
	for {
		if p.duplicate(mark, key.Value) {
			return nil, false
		}
		val, ok := p.value(after, m)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, key, val)
		if p.eof() || p.ind < m {
			break
		}
		if p.ind > m {
			return nil, false
		}
		var isKey bool
		if key, after, isKey, ok = p.key(p.ls + m); !ok || !isKey {
			return nil, false
		}
	}
	p.finish(n, mark)
	return n, true
}

// value parses a mapping value that follows the ":" ending at offset
// after; m is the mapping's indentation.
func (p *fastParser) value(after, m int) (*Node, bool) {
	v := after
	for v < p.le && p.src[v] == ' ' {
		v++
	}
	if v < p.le && p.src[v] != '#' {
		return p.inline(v, m)
	}
	// Nothing on the line: the value is on the next lines, or null at the
	// end of the ":" as yaml.v3 places it.
	line, col := p.base+p.ln, p.col(after)
	p.nextLine()
	p.toContent()
	switch {
	case p.eof():
	case p.ind > m:
		return p.block(p.ls+p.ind, m)
	case p.ind == m && p.isEntry(p.ls+m):
		return p.sequence(p.ls + m)
	}
	return p.null(line, col), true
}

// sequence parses a block sequence whose first "-" is at offset at.
func (p *fastParser) sequence(at int) (*Node, bool) {
	s := at - p.ls
	n := p.node(SequenceNode, at)
	mark := len(p.stack)
	for {
		v := at + 1
		for v < p.le && p.src[v] == ' ' {
			v++
		}
		var item *Node
		var ok bool
		if v < p.le && p.src[v] != '#' {
			item, ok = p.block(v, s)
		} else {
			line, col := p.base+p.ln, p.col(at+1)
			p.nextLine()
			p.toContent()
			if !p.eof() && p.ind > s {
				item, ok = p.block(p.ls+p.ind, s)
			} else {
				item, ok = p.null(line, col), true
			}
		}
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, item)
		if p.eof() || p.ind < s {
			break
		}
		if p.ind > s {
			return nil, false
		}
		if at = p.ls + s; !p.isEntry(at) {
			break
		}
	}
	p.finish(n, mark)
	return n, true
}

// inline parses a scalar or flow collection at offset v of the current
// line and moves to the next content line, which must not be indented
// more than parent (that would continue a multi-line scalar, or be an
// error).
func (p *fastParser) inline(v, parent int) (*Node, bool) {
	var n *Node
	var ok bool
	switch p.src[v] {
	case '|', '>':
		n, ok = p.blockScalar(v, parent)
		if !ok {
			return nil, false
		}
		p.toContent()
		return n, p.eof() || p.ind <= parent
	case '[', '{':
		var end int
		n, end, ok = p.flow(v, 0)
		ok = ok && p.restIsEmpty(end)
	case '"', '\'':
		var end int
		n, end, ok = p.quoted(v)
		ok = ok && p.restIsEmpty(end)
	default:
		n, ok = p.plain(v)
	}
	if !ok {
		return nil, false
	}
	p.nextLine()
	p.toContent()
	return n, p.eof() || p.ind <= parent
}
