package nodeconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// pos is a 1-based line and column.
type pos struct{ line, col int }

// index records where each field's key starts, as a tree of path
// segments ("plugins", "[0]", "delegate", "[io.containerd.grpc.v1.cri]"):
// memory grows with the number of fields, not with their depth times their
// count as a map of full path strings would. Fields are addressed by paths
// written as the API server writes them ("plugins[0].delegate.type").
type index struct {
	nodes []posNode // nodes[0] is the document
}

// posNode is one field; kid and next are indexes into index.nodes (0: none).
type posNode struct {
	line, col int32
	kid, last int32 // first and last child
	next      int32 // next sibling
	seg       string
}

func newIndex() *index { return &index{nodes: []posNode{{line: 1, col: 1}}} }

// add records a child of parent at p and returns its node.
func (ix *index) add(parent int32, seg string, p pos) int32 {
	n := int32(len(ix.nodes))
	ix.nodes = append(ix.nodes, posNode{line: int32(p.line), col: int32(p.col), seg: seg})
	par := &ix.nodes[parent]
	if par.kid == 0 {
		par.kid = n
	} else {
		ix.nodes[par.last].next = n
	}
	par.last = n
	return n
}

// find returns the child of n whose segment is seg. A later duplicate
// wins, as it does in the decoded document.
func (ix *index) find(n int32, seg string) (int32, bool) {
	found, ok := int32(0), false
	for k := ix.nodes[n].kid; k != 0; k = ix.nodes[k].next {
		if ix.nodes[k].seg == seg {
			found, ok = k, true
		}
	}
	return found, ok
}

// locate returns the position of path, or of its deepest present ancestor.
func (ix *index) locate(path string) pos {
	if ix == nil || len(ix.nodes) == 0 {
		return pos{1, 1}
	}
	n := int32(0)
	for rest := path; rest != ""; {
		next, after, ok := ix.step(n, rest)
		if !ok {
			break
		}
		n, rest = next, strings.TrimPrefix(after, ".")
	}
	return pos{int(ix.nodes[n].line), int(ix.nodes[n].col)}
}

// step matches the first segment of rest among n's children.
func (ix *index) step(n int32, rest string) (int32, string, bool) {
	if rest[0] == '[' {
		// A bracketed key may itself hold brackets: try each closing one.
		for j := 1; j < len(rest); j++ {
			if rest[j] != ']' || (j+1 < len(rest) && rest[j+1] != '.' && rest[j+1] != '[') {
				continue
			}
			if k, ok := ix.find(n, rest[:j+1]); ok {
				return k, rest[j+1:], true
			}
		}
		return 0, "", false
	}
	end := strings.IndexAny(rest, ".[")
	if end < 0 {
		end = len(rest)
	}
	k, ok := ix.find(n, rest[:end])
	return k, rest[end:], ok
}

// keySeg is the path segment of a key, bracketed when it holds a dot.
func keySeg(key string) string {
	if strings.ContainsAny(key, ".[]/") || key == "" {
		return "[" + key + "]"
	}
	return key
}

func itemSeg(i int) string { return "[" + strconv.Itoa(i) + "]" }

// parent drops the last segment of a path.
func parent(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

// child appends a key to a path, bracketing keys that hold a dot.
func child(p, key string) string {
	if strings.ContainsAny(key, ".[]/") || key == "" {
		return p + "[" + key + "]"
	}
	if p == "" {
		return key
	}
	return p + "." + key
}

func item(p string, i int) string { return p + "[" + strconv.Itoa(i) + "]" }

// lineCol converts a byte offset to a position.
func lineCol(data []byte, off int) pos {
	lead := data[:min(off, len(data))]
	return pos{bytes.Count(lead, []byte{'\n'}) + 1, len(lead) - bytes.LastIndexByte(lead, '\n')}
}

// lines converts increasing byte offsets to positions in time linear in
// the input, however many offsets are asked for.
type lines struct {
	data      []byte
	off, line int // data[:off] has line-1 newlines
	lineStart int
}

func (l *lines) at(off int) pos {
	off = min(off, len(l.data))
	if off < l.off { // not increasing: count again from the start
		l.off, l.line, l.lineStart = 0, 1, 0
	}
	for {
		i := bytes.IndexByte(l.data[l.off:off], '\n')
		if i < 0 {
			break
		}
		l.off += i + 1
		l.line++
		l.lineStart = l.off
	}
	l.off = off
	return pos{l.line, off - l.lineStart + 1}
}

// jsonIndex records the position of every key and array element of a JSON
// document, and refuses what libcni and flannel would read otherwise than
// the rules do: a key repeated in one object, also in another case
// (encoding/json matches struct fields case-insensitively, so the later
// "Type" overrides "type"). The caller has checked that data is valid
// JSON and within the depth limit.
func jsonIndex(path string, data []byte) (*index, error) {
	ix := newIndex()
	ln := &lines{data: data, line: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	var errs []error
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	var walk func(n int32) error
	walk = func(n int32) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]pos{}
			for dec.More() {
				at := ln.at(start())
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := fmt.Sprint(k)
				fold := strings.ToLower(key)
				if first, dup := seen[fold]; dup {
					errs = append(errs, &LoadError{File: path, Line: at.line, Column: at.col, Msg: fmt.Sprintf(
						"duplicate key %q (first at line %d column %d): CNI plugins decode keys case-insensitively and keep the last, so the two cannot both be meant; keep one", key, first.line, first.col)})
				} else {
					seen[fold] = at
				}
				if err := walk(ix.add(n, keySeg(key), at)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(ix.add(n, itemSeg(i), ln.at(start()))); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	_ = walk(0)
	return ix, errors.Join(errs...)
}

// tomlIndex records the position of every table header and key of a TOML
// document; array-of-tables entries are indexed [0], [1], ...
func tomlIndex(data []byte) (*index, error) {
	ix := newIndex()
	var p unstable.Parser
	p.Reset(data)
	table := int32(0)
	arrays := map[int32]int{} // array-of-tables node: entries so far
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			n, first := tomlKey(ix, &p, 0, e.Key())
			if e.Kind == unstable.ArrayTable {
				i := arrays[n]
				arrays[n]++
				n = ix.add(n, itemSeg(i), first)
			}
			table = n
		case unstable.KeyValue:
			tomlKey(ix, &p, table, e.Key())
		}
	}
	if err := p.Error(); err != nil {
		var perr *unstable.ParserError
		if pe, ok := err.(*unstable.ParserError); ok {
			perr = pe
			at := p.Shape(p.Range(perr.Highlight)).Start
			return nil, &LoadError{Line: at.Line, Column: at.Column, Msg: perr.Message}
		}
		return nil, err
	}
	return ix, nil
}

// tomlKey walks (creating as needed) a dotted key below base and returns
// its node and the position of its first part. A header repeated for an
// existing table reuses its node.
func tomlKey(ix *index, p *unstable.Parser, base int32, it unstable.Iterator) (int32, pos) {
	n, first := base, pos{}
	for it.Next() {
		k := it.Node()
		s := p.Shape(k.Raw).Start
		at := pos{s.Line, s.Column}
		if first.line == 0 {
			first = at
		}
		seg := keySeg(string(k.Data))
		if kid, ok := ix.find(n, seg); ok {
			n = kid
			continue
		}
		n = ix.add(n, seg, at)
	}
	// The whole key is where its first part is, as a header names it.
	ix.nodes[n].line, ix.nodes[n].col = int32(first.line), int32(first.col)
	return n, first
}
