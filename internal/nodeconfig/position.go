package nodeconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// pos is a 1-based line and column.
type pos struct{ line, col int }

// index maps field paths, written as the API server writes them
// ("plugins[0].delegate.type", "plugins[io.containerd.grpc.v1.cri].cni"),
// to where the field's key starts.
type index map[string]pos

// locate returns the position of path, or of its deepest present ancestor.
func (ix index) locate(path string) pos {
	for p := path; p != ""; p = parent(p) {
		if at, ok := ix[p]; ok {
			return at
		}
	}
	return pos{1, 1}
}

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

// jsonIndex records the position of every key and array element of a JSON
// document. The caller has already checked that data is valid JSON.
func jsonIndex(data []byte) index {
	ix := index{}
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(path string) error
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				at := start()
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := child(path, fmt.Sprint(k))
				ix[key] = lineCol(data, at)
				if err := walk(key); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				ix[item(path, i)] = lineCol(data, start())
				if err := walk(item(path, i)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	_ = walk("")
	return ix
}

// tomlIndex records the position of every table header and key of a TOML
// document; array-of-tables entries are indexed [0], [1], ...
func tomlIndex(data []byte) (index, error) {
	ix := index{}
	var p unstable.Parser
	p.Reset(data)
	table := ""
	arrays := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, first := tomlKey(&p, "", e.Key())
			if e.Kind == unstable.ArrayTable {
				path = item(path, arrays[path])
				arrays[parent(path)]++
			}
			ix[path] = first
			table = path
		case unstable.KeyValue:
			path, first := tomlKey(&p, table, e.Key())
			ix[path] = first
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

// tomlKey joins a dotted key onto base and returns the position of its
// first part.
func tomlKey(p *unstable.Parser, base string, it unstable.Iterator) (string, pos) {
	path, first := base, pos{}
	for it.Next() {
		n := it.Node()
		if first.line == 0 {
			s := p.Shape(n.Raw).Start
			first = pos{s.Line, s.Column}
		}
		path = child(path, string(n.Data))
	}
	return path, first
}
