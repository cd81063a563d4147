package manifest

import (
	"encoding/binary"
	"math"
	"sync"
	"unicode/utf8"
)

// The fast parser reads the block-style YAML that manifests are written
// in (block mappings and sequences, plain and quoted one-line scalars,
// one-line flow collections, literal and folded block scalars, comments)
// straight into Nodes, with the positions and tags yaml.v3 would give.
// It declines everything else — anchors, aliases, tags, complex keys,
// multi-line plain, quoted or flow scalars, tabs, directives, duplicate
// keys, anything invalid — and parseYAML then asks yaml.v3, so the result
// never depends on which parser ran. FuzzFastParse checks exactly that.
//
// It is several times faster than yaml.v3 and allocates far less: node
// values are substrings of one copy of the document, nodes and their
// Content come from slabs.

// maxFastDepth bounds nesting; deeper documents go to yaml.v3.
const maxFastDepth = 500

type fastParser struct {
	src   string  // the document; values are substrings of it
	base  int     // the document's first line in its file, minus 1
	ascii bool    // columns are byte offsets
	nls   []int32 // offsets of the line breaks, from the text check

	// The current line: src[ls:le] is its text without the line break,
	// nl is where the next line starts, ind is its indentation and ln its
	// 1-based number in the document. ls == len(src) at the end.
	ls, le, nl, ind, ln int

	nodes []Node  // slab of nodes
	ptrs  []*Node // slab for Content slices
	stack []*Node // children of the collections being built
	count int     // nodes made
	depth int
}

// parsers pools the parser's scratch (line index, collection stack):
// only the nodes and values outlive a parse.
var parsers = sync.Pool{New: func() any { return new(fastParser) }}

// parseFast parses data, or reports false when it is not in the subset.
func parseFast(line int, data []byte) (*Node, bool) {
	if len(data) >= math.MaxInt32 {
		return nil, false
	}
	p := parsers.Get().(*fastParser)
	defer func() {
		clear(p.stack) // a declined parse leaves nodes there
		*p = fastParser{nls: p.nls[:0], stack: p.stack[:0]}
		parsers.Put(p)
	}()
	ascii, ok := scanText(data, &p.nls)
	if !ok || hasMarker(data, 0) {
		return nil, false
	}
	for _, nl := range p.nls {
		if hasMarker(data, int(nl)+1) {
			return nil, false
		}
	}
	// Manifests have about two nodes per line; more come in chunks.
	est := 2*len(p.nls) + 8
	p.src, p.base, p.ascii = string(data), line-1, ascii
	p.nodes, p.ptrs = make([]Node, 0, est), make([]*Node, 0, est)
	p.setLine(0)
	p.toContent()
	if p.eof() {
		return nil, false // empty: yaml.v3 says how
	}
	n, ok := p.block(p.ls+p.ind, -1)
	if !ok || !p.eof() {
		return nil, false
	}
	return n, true
}

// hasMarker reports whether the line at offset i starts with a document
// marker ("---" or "..." and a space or the end of the line): the
// splitter cuts documents there, but DecodeStrict parses whole files.
func hasMarker(data []byte, i int) bool {
	if i+3 > len(data) || (string(data[i:i+3]) != "---" && string(data[i:i+3]) != "...") {
		return false
	}
	return i+3 == len(data) || data[i+3] == ' ' || data[i+3] == '\n' || data[i+3] == '\r'
}

// textClass sorts bytes for scanText: 0 printable ASCII, 1 line feed,
// 2 carriage return, 3 refused, 4 the start of a multi-byte character.
var textClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 0x20 && c < 0x7F:
		case c == '\n':
			t[c] = 1
		case c == '\r':
			t[c] = 2
		case c < 0x80:
			t[c] = 3 // tabs, control characters, DEL
		default:
			t[c] = 4
		}
	}
	return t
}()

// scanText checks that data holds only what the fast parser handles
// (printable characters, spaces, LF or CRLF line breaks), records where
// the line breaks are, and reports whether data is all ASCII.
func scanText(data []byte, nls *[]int32) (ascii, ok bool) {
	ascii = true
	*nls = (*nls)[:0]
	for i := 0; i < len(data); {
		// Skip eight printable ASCII bytes at a time: none below 0x20,
		// none with the high bit set, no DEL.
		if i+8 <= len(data) {
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			w := binary.LittleEndian.Uint64(data[i:])
			// (Go's | binds like -: every term needs its parentheses.)
			if ((w-0x20*ones)|w|((w^0x7F*ones)-ones))&highs == 0 {
				i += 8
				continue
			}
		}
		switch textClass[data[i]] {
		case 0:
			i++
		case 1:
			*nls = append(*nls, int32(i))
			i++
		case 2:
			if i+1 == len(data) || data[i+1] != '\n' {
				return false, false // a lone CR
			}
			i++
		case 3:
			return false, false
		default:
			ascii = false
			r, n := utf8.DecodeRune(data[i:])
			// yaml.v3 refuses 0x80-0x9F but NEL (a line break), and
			// treats LS/PS as line breaks and a BOM specially.
			if r == utf8.RuneError || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
				return false, false
			}
			i += n
		}
	}
	return ascii, true
}

// setLine makes line i (0-based) current.
func (p *fastParser) setLine(i int) {
	p.ln = i + 1
	if i > len(p.nls) {
		p.ls, p.le, p.nl, p.ind = len(p.src), len(p.src), len(p.src), 0
		return
	}
	p.ls, p.le, p.nl = 0, len(p.src), len(p.src)
	if i > 0 {
		p.ls = int(p.nls[i-1]) + 1
	}
	if i < len(p.nls) {
		p.le = int(p.nls[i])
		p.nl = p.le + 1
	}
	if p.ls >= len(p.src) {
		p.ls, p.le, p.nl, p.ind = len(p.src), len(p.src), len(p.src), 0
		return
	}
	if p.le > p.ls && p.src[p.le-1] == '\r' {
		p.le--
	}
	ind := 0
	for p.ls+ind < p.le && p.src[p.ls+ind] == ' ' {
		ind++
	}
	p.ind = ind
}

func (p *fastParser) nextLine() { p.setLine(p.ln) }

func (p *fastParser) eof() bool { return p.ls >= len(p.src) }

// hasBreak reports whether the current line ends with a line break.
func (p *fastParser) hasBreak() bool { return p.nl > p.le }

// toContent moves to the next line, from the current one, that is
// neither blank nor a comment.
func (p *fastParser) toContent() {
	for !p.eof() {
		if c := p.ls + p.ind; c < p.le && p.src[c] != '#' {
			return
		}
		p.nextLine()
	}
}

// restIsEmpty reports whether only spaces and a comment follow offset i
// on the current line. A comment needs a space before it.
func (p *fastParser) restIsEmpty(i int) bool {
	j := i
	for j < p.le && p.src[j] == ' ' {
		j++
	}
	return j == p.le || (p.src[j] == '#' && j > i)
}

// col is the 1-based column of offset off on the current line.
func (p *fastParser) col(off int) int {
	if p.ascii {
		return off - p.ls + 1
	}
	return utf8.RuneCountInString(p.src[p.ls:off]) + 1
}

// node returns a new node positioned at offset off of the current line.
func (p *fastParser) node(kind Kind, off int) *Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]Node, 0, max(64, cap(p.nodes)/4))
	}
	p.nodes = p.nodes[:len(p.nodes)+1]
	n := &p.nodes[len(p.nodes)-1]
	n.Kind, n.Line, n.Column = kind, p.base+p.ln, p.col(off)
	p.count++
	return n
}

// null returns an empty value, placed where yaml.v3 places it: just
// after the ":" or "-" before it.
func (p *fastParser) null(line, col int) *Node {
	n := p.node(ScalarNode, p.ls)
	n.Tag, n.Line, n.Column = TagNull, line, col
	return n
}

func (p *fastParser) scalar(tag Tag, value string, off int) *Node {
	n := p.node(ScalarNode, off)
	n.Tag, n.Value = tag, value
	return n
}

// finish sets n's Content to the children stacked since mark.
func (p *fastParser) finish(n *Node, mark int) {
	k := len(p.stack) - mark
	if len(p.ptrs)+k > cap(p.ptrs) {
		p.ptrs = make([]*Node, 0, max(256, k, cap(p.ptrs)/4))
	}
	start := len(p.ptrs)
	p.ptrs = append(p.ptrs, p.stack[mark:]...)
	n.Content = p.ptrs[start : start+k : start+k]
	clear(p.stack[mark:])
	p.stack = p.stack[:mark]
}

// duplicate reports whether key is already a key of the mapping whose
// pairs are stacked since mark. yaml.v3's path reports the error.
func (p *fastParser) duplicate(mark int, key string) bool {
	for i := mark; i < len(p.stack); i += 2 {
		if p.stack[i].Value == key {
			return true
		}
	}
	return false
}
