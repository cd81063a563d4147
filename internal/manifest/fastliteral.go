package manifest

// Block scalars (| and >), scanned line by line exactly as yaml.v3's
// scanner does, including its quirks: whitespace-only lines deeper than
// the content are content, the indentation is the largest of the leading
// blank lines and the first line, and the final line break is kept only
// if the input has one.

// blockScalar parses the block scalar whose indicator is at offset v; it
// returns on the first line after its content.
func (p *fastParser) blockScalar(v, parent int) (*Node, bool) {
	literal := p.src[v] == '|'
	chomp, inc := 0, 0 // chomp: -1 strip, 0 clip, +1 keep
	i := v + 1
	for ; i < p.le && i < v+3; i++ { // "|", "|-", "|2", "|-2", "|2-"
		c := p.src[i]
		if c == '+' && chomp == 0 {
			chomp = 1
		} else if c == '-' && chomp == 0 {
			chomp = -1
		} else if c >= '1' && c <= '9' && inc == 0 {
			inc = int(c - '0')
		} else {
			break
		}
	}
	if !p.restIsEmpty(i) {
		return nil, false
	}
	n := p.scalar(TagStr, "", v)
	indent := 0 // unknown until the first non-empty line
	if inc > 0 {
		indent = max(parent, 0) + inc
	}
	p.nextLine()
	var s []byte
	trailing := p.blockBreaks(&indent, parent)
	var leading int // line breaks after the last content line: 0 or 1
	var leadingBlank bool
	// A content line: indented at least indent, something after it.
	for !p.eof() && p.blockColumn(indent) == indent && p.ls+indent < p.le {
		trailingBlank := p.src[p.ls+indent] == ' '
		if !literal && !leadingBlank && !trailingBlank && leading == 1 {
			if trailing == 0 {
				s = append(s, ' ')
			}
		} else {
			s = appendBreaks(s, leading)
		}
		s = appendBreaks(s, trailing)
		leadingBlank = trailingBlank
		s = append(s, p.src[p.ls+indent:p.le]...)
		leading = 0
		if p.hasBreak() {
			leading = 1
		}
		p.nextLine()
		trailing = p.blockBreaks(&indent, parent)
	}
	if chomp != -1 {
		s = appendBreaks(s, leading)
	}
	if chomp == 1 {
		s = appendBreaks(s, trailing)
	}
	n.Value = string(s)
	return n, true
}

// blockColumn is where yaml.v3's scanner stands on the current line after
// eating indentation: all spaces while the indentation is unknown (0),
// else at most indent of them.
func (p *fastParser) blockColumn(indent int) int {
	if indent == 0 {
		return p.ind
	}
	return min(p.ind, indent)
}

// blockBreaks skips the empty lines from the current one and counts
// them; while the indentation is unknown it settles it from them and the
// first non-empty line. A line is empty when nothing follows the eaten
// indentation and it ends with a line break.
func (p *fastParser) blockBreaks(indent *int, parent int) int {
	breaks, maxIndent := 0, 0
	for !p.eof() {
		c := p.blockColumn(*indent)
		maxIndent = max(maxIndent, c)
		if p.ls+c < p.le || !p.hasBreak() {
			break
		}
		breaks++
		p.nextLine()
	}
	if *indent == 0 {
		*indent = max(maxIndent, parent+1, 1)
	}
	return breaks
}

func appendBreaks(s []byte, n int) []byte {
	for range n {
		s = append(s, '\n')
	}
	return s
}
