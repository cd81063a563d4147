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

// applyEdit applies one edit to one document's text. item selects a List
// item (-1 for the document itself).
func applyEdit(src string, item int, e rule.Edit) (string, error) {
	t := newText(src)
	root, err := parseRoot(src, item)
	if err != nil {
		return "", err
	}
	t.detectStyle(root)
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

func parseRoot(src string, item int) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("document is not a mapping")
	}
	root := doc.Content[0]
	if item >= 0 {
		items := mapGet(root, "items")
		if items == nil || items.Kind != yaml.SequenceNode || item >= len(items.Content) {
			return nil, fmt.Errorf("list item %d not found", item)
		}
		root = items.Content[item]
	}
	return root, nil
}

func mapGet(m *yaml.Node, k string) *yaml.Node {
	_, v := mapEntry(m, k)
	return v
}

func mapEntry(m *yaml.Node, k string) (key, val *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func isFlow(n *yaml.Node) bool { return n.Style&yaml.FlowStyle != 0 }

// set sets the field at segs to value, creating what is missing.
func (t *text) set(n *yaml.Node, segs []segment, value any) error {
	for i, s := range segs {
		if n.Kind == yaml.AliasNode {
			return errors.New("cannot edit through a YAML alias")
		}
		if idx, ok := s.Index(); ok && n.Kind == yaml.SequenceNode {
			if idx >= len(n.Content) {
				return fmt.Errorf("list index %d out of range", idx)
			}
			n = n.Content[idx]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", s.Name)
		}
		k, v := mapEntry(n, s.Name)
		if k == nil {
			return t.addEntries(n, names(segs[i:]), value)
		}
		if i < len(segs)-1 && (isNull(v) || (v.Kind == yaml.MappingNode && len(v.Content) == 0 && isFlow(v))) {
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

// replaceScalar rewrites a scalar value in place.
func (t *text) replaceScalar(n *yaml.Node, value any) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("cannot replace a mapping or list with a value")
	}
	var cur any
	if err := n.Decode(&cur); err == nil && reflect.DeepEqual(normalize(cur), normalize(value)) {
		return errNoop
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return errors.New("cannot replace a block scalar")
	}
	line := t.lines[n.Line-1]
	col := n.Column - 1
	end := scalarEnd(line, col, false)
	t.lines[n.Line-1] = line[:col] + flow(value) + line[end:]
	return nil
}

// addEntries adds keys (nested) with value to mapping m.
func (t *text) addEntries(m *yaml.Node, keys []string, value any) error {
	if isFlow(m) {
		return t.flowInsert(m, nestedFlow(keys, value))
	}
	if len(m.Content) == 0 {
		return errors.New("cannot add to an empty block mapping")
	}
	k0 := m.Content[0]
	last := m.Content[len(m.Content)-2]
	end := t.entryEnd(last, m.Content[len(m.Content)-1])
	t.insert(end, t.block(k0.Column-1, keys, value))
	return nil
}

func nestedFlow(keys []string, value any) string {
	s := flow(value)
	for i := len(keys) - 1; i >= 1; i-- {
		s = "{" + key(keys[i]) + ": " + s + "}"
	}
	return key(keys[0]) + ": " + s
}

// fillEmpty gives an entry whose value is null or {} its first content.
func (t *text) fillEmpty(k, v *yaml.Node, keys []string, value any) error {
	line := t.lines[k.Line-1]
	if isFlow(v) { // key: {}
		end, err := closing(line, v.Column-1)
		if err != nil {
			return err
		}
		t.lines[k.Line-1] = line[:v.Column-1] + "{" + nestedFlow(keys, value) + "}" + line[end+1:]
		return nil
	}
	// key:   or key: null or key: ~  -> key: + nested block
	colon := strings.Index(line[k.Column-1:], ":") + k.Column - 1
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
	cl, cc, err := t.closingPos(n.Line-1, n.Column-1)
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
		indent = n.Content[0].Column - 1
	}
	suffix := ""
	if trailing {
		suffix = ","
	}
	t.insert(cl-1, []string{strings.Repeat(" ", indent) + entry + suffix})
	return nil
}

// append adds value to the list at segs unless an equal element is there.
func (t *text) append(root *yaml.Node, segs []segment, value any) error {
	parent, k, list, err := t.locate(root, segs)
	if err != nil {
		return err
	}
	if list == nil {
		return t.set(root, segs, []any{value})
	}
	if isNull(list) {
		return t.fillList(k, []any{value})
	}
	if list.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s is not a list", segs[len(segs)-1].Name)
	}
	_ = parent
	for _, e := range list.Content {
		var cur any
		if e.Decode(&cur) == nil && reflect.DeepEqual(normalize(cur), normalize(value)) {
			return errNoop
		}
	}
	if isFlow(list) {
		return t.flowInsert(list, flow(value))
	}
	first := list.Content[0]
	end := t.itemEnd(list, len(list.Content)-1)
	t.insert(end, t.item(list.Column-1, value, first.Kind == yaml.MappingNode && isFlow(first)))
	return nil
}

// fillList replaces a null list value (key:) with a block list.
func (t *text) fillList(k *yaml.Node, items []any) error {
	line := t.lines[k.Line-1]
	colon := strings.Index(line[k.Column-1:], ":") + k.Column - 1
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

// locate walks segs; it returns the final node's parent mapping, key and
// value, or a nil value when the last step is missing. A missing middle
// step is reported as missing too.
func (t *text) locate(root *yaml.Node, segs []segment) (parent, k, v *yaml.Node, err error) {
	n := root
	for i, s := range segs {
		if n.Kind == yaml.AliasNode {
			return nil, nil, nil, errors.New("cannot edit through a YAML alias")
		}
		if idx, ok := s.Index(); ok && n.Kind == yaml.SequenceNode {
			if idx >= len(n.Content) {
				return nil, nil, nil, nil
			}
			parent, k, n = n, nil, n.Content[idx]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return nil, nil, nil, nil
		}
		kk, vv := mapEntry(n, s.Name)
		if kk == nil {
			return nil, nil, nil, nil
		}
		if i == len(segs)-1 {
			return n, kk, vv, nil
		}
		parent, k, n = n, kk, vv
	}
	return parent, k, n, nil
}

// normalize makes decoded YAML comparable with edit values.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalize(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = normalize(e)
		}
		return s
	}
	return v
}
