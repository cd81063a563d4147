package fix

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/winkube/winkube/internal/rule"
)

// errNoop marks an edit that would change nothing.
var errNoop = errors.New("already applied")

// applyEdit applies one edit to one document's text, guided by doc, the
// text's tree. item selects an object of a List (-1 for the document
// itself); isJSON renders the edit as JSON.
func applyEdit(src string, doc *yaml.Node, item int, e rule.Edit, isJSON bool) (string, error) {
	t := newText(src)
	t.json = isJSON
	root, err := rootOf(doc, item)
	if err != nil {
		return "", err
	}
	t.detectStyle(root.node)
	segs := parsePath(e.Path)
	if len(segs) == 0 {
		return "", fmt.Errorf("empty path")
	}
	switch e.Op {
	case rule.Set:
		err = t.set(root, segs, e.Value)
	case rule.Remove:
		err = t.removePath(root, segs)
	case rule.Append:
		err = t.append(root, segs, e.Value)
	default:
		err = fmt.Errorf("unknown edit %q", e.Op)
	}
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// set sets the field at segs to value, creating what is missing.
func (t *text) set(n at, segs []segment, value any) error {
	for i, s := range segs {
		k, v, err := step(n, s)
		if err != nil {
			return err
		}
		if v.node == nil {
			return t.addEntries(n, names(segs[i:]), value)
		}
		if k != nil && i < len(segs)-1 && (isNull(v.node) || (v.node.Kind == yaml.MappingNode && len(v.node.Content) == 0 && isFlow(v.node))) {
			return t.fillEmpty(k, v, names(segs[i+1:]), value)
		}
		n = v
	}
	return t.replaceScalar(n, value)
}

func names(segs []segment) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.Name
	}
	return out
}

// replaceScalar rewrites a scalar value in place, in its quoting style
// where that can hold the new value.
func (t *text) replaceScalar(n at, value any) error {
	if n.node.Kind != yaml.ScalarNode {
		return errors.New("cannot replace a mapping or list with a value")
	}
	var cur any
	if err := n.node.Decode(&cur); err == nil && reflect.DeepEqual(normalize(cur), normalize(value)) {
		return errNoop
	}
	if n.node.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return errors.New("cannot replace a block scalar")
	}
	line := t.lines[n.node.Line-1]
	col := t.col(n.node)
	end := scalarEnd(line, col, n.flow)
	t.lines[n.node.Line-1] = line[:col] + t.value(value, n.flow, n.node.Style) + line[end:]
	return nil
}

// addEntries adds keys (nested) with value to mapping m.
func (t *text) addEntries(m at, keys []string, value any) error {
	if isFlow(m.node) || m.flow {
		return t.flowInsert(m.node, t.nestedFlow(keys, value))
	}
	if len(m.node.Content) == 0 {
		return errors.New("cannot add to an empty block mapping")
	}
	k0 := m.node.Content[0]
	last := m.node.Content[len(m.node.Content)-2]
	end := t.entryEnd(last, m.node.Content[len(m.node.Content)-1])
	t.insert(end, t.block(k0.Column-1, keys, value))
	return nil
}

func (t *text) nestedFlow(keys []string, value any) string {
	s := t.flow(value)
	for i := len(keys) - 1; i >= 1; i-- {
		s = "{" + t.key(keys[i], true) + ": " + s + "}"
	}
	return t.key(keys[0], true) + ": " + s
}

// fillEmpty gives an entry whose value is null or {} its first content.
func (t *text) fillEmpty(k *yaml.Node, v at, keys []string, value any) error {
	line := t.lines[v.node.Line-1]
	switch {
	case isFlow(v.node): // key: {}
		c := t.col(v.node)
		end, err := closing(line, c)
		if err != nil {
			return err
		}
		t.lines[v.node.Line-1] = line[:c] + "{" + t.nestedFlow(keys, value) + "}" + line[end+1:]
		return nil
	case v.flow || t.json: // null in flow context, or JSON
		c := t.col(v.node)
		t.lines[v.node.Line-1] = line[:c] + "{" + t.nestedFlow(keys, value) + "}" + line[scalarEnd(line, c, v.flow):]
		return nil
	}
	// key:  (nothing after the colon) -> key: + nested block
	line = t.lines[k.Line-1]
	colon := strings.Index(line[t.col(k):], ":") + t.col(k)
	rest := line[colon+1:]
	comment := ""
	if i := strings.Index(rest, "#"); i >= 0 {
		comment = " " + rest[i:]
	}
	t.lines[k.Line-1] = line[:colon+1] + comment
	t.insert(k.Line-1, t.block(k.Column-1+t.step, keys, value))
	return nil
}

// flowInsert adds an entry before the closing bracket of a flow
// collection. In a collection written one entry per line the entry gets a
// line of its own, with the entries' indentation and comma style.
func (t *text) flowInsert(n *yaml.Node, entry string) error {
	cl, cc, err := t.closingPos(n.Line-1, t.col(n))
	if err != nil {
		return err
	}
	line := t.lines[cl]
	if cl == n.Line-1 || strings.TrimSpace(line[:cc]) != "" {
		sep := ", "
		inner := strings.TrimRight(line[:cc], " ")
		if len(n.Content) == 0 || strings.HasSuffix(inner, ",") {
			sep = " "
		}
		if len(n.Content) == 0 {
			sep = ""
		}
		t.lines[cl] = inner + sep + entry + line[cc:]
		return nil
	}
	// Multi-line: the closing bracket starts its line.
	prev := cl - 1
	for prev > n.Line-1 && strings.TrimSpace(t.lines[prev]) == "" {
		prev--
	}
	trailing := strings.HasSuffix(strings.TrimSpace(t.lines[prev]), ",")
	if len(n.Content) > 0 && !trailing {
		t.lines[prev] += ","
	}
	indent := indentOf(line) + t.step
	if len(n.Content) > 0 {
		indent = byteCol(t.lines[n.Content[0].Line-1], n.Content[0].Column)
	}
	suffix := ""
	if trailing {
		suffix = ","
	}
	t.insert(cl-1, []string{strings.Repeat(" ", indent) + entry + suffix})
	return nil
}

// append adds value to the list at segs unless an equal element is there.
func (t *text) append(root at, segs []segment, value any) error {
	k, list, err := t.locate(root, segs)
	if err != nil {
		return err
	}
	if list.node == nil {
		return t.set(root, segs, []any{value})
	}
	if isNull(list.node) {
		return t.fillList(k, list, []any{value})
	}
	if list.node.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s is not a list", segs[len(segs)-1].Name)
	}
	for _, e := range list.node.Content {
		var cur any
		if e.Decode(&cur) == nil && reflect.DeepEqual(normalize(cur), normalize(value)) {
			return errNoop
		}
	}
	if isFlow(list.node) || list.flow {
		return t.flowInsert(list.node, t.flow(value))
	}
	first := list.node.Content[0]
	end := t.itemEnd(list.node, len(list.node.Content)-1)
	t.insert(end, t.item(list.node.Column-1, value, first.Kind == yaml.MappingNode && isFlow(first)))
	return nil
}

// fillList replaces a null list value (key:) with a list.
func (t *text) fillList(k *yaml.Node, v at, items []any) error {
	if k == nil {
		return errors.New("cannot fill a null list item")
	}
	if v.flow || t.json {
		line := t.lines[v.node.Line-1]
		c := t.col(v.node)
		t.lines[v.node.Line-1] = line[:c] + t.flow(items) + line[scalarEnd(line, c, v.flow):]
		return nil
	}
	line := t.lines[k.Line-1]
	colon := strings.Index(line[t.col(k):], ":") + t.col(k)
	t.lines[k.Line-1] = line[:colon+1]
	indent := k.Column - 1
	if t.seqIndented {
		indent += t.step
	}
	var out []string
	for _, it := range items {
		out = append(out, t.item(indent, it, false)...)
	}
	t.insert(k.Line-1, out)
	return nil
}

// locate walks segs; it returns the final key and value, or a nil value
// when a step is missing.
func (t *text) locate(root at, segs []segment) (k *yaml.Node, v at, err error) {
	n := root
	for _, s := range segs {
		kk, vv, err := step(n, s)
		if err != nil {
			if _, isIndex := s.Index(); isIndex && strings.Contains(err.Error(), "out of range") {
				return nil, at{}, nil
			}
			return nil, at{}, err
		}
		if vv.node == nil {
			return nil, at{}, nil
		}
		k, n = kk, vv
	}
	return k, n, nil
}

// normalize makes decoded YAML comparable with edit values.
func normalize(v any) any {
	return mapScalars(v, func(s any) any {
		switch x := s.(type) {
		case int:
			return int64(x)
		case uint64:
			return int64(x)
		}
		return s
	})
}

// mapScalars copies a decoded tree of maps and lists with f applied to
// each scalar.
func mapScalars(v any, f func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = mapScalars(e, f)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = mapScalars(e, f)
		}
		return s
	}
	return f(v)
}
