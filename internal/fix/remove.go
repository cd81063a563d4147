package fix

import (
	"errors"
	"strings"

	"gopkg.in/yaml.v3"
)

// removePath deletes the field at segs; a missing field is a no-op. A
// mapping left empty by the removal goes too, up to the pod spec's level,
// so `securityContext: {}` is not left behind.
func (t *text) removePath(root at, segs []segment) error {
	chain := []at{root}
	keys := []*yaml.Node{nil}
	n := root
	for _, s := range segs {
		k, v, err := step(n, s)
		if err != nil {
			if _, isIndex := s.Index(); isIndex && strings.Contains(err.Error(), "out of range") {
				return errNoop
			}
			return err
		}
		if v.node == nil {
			return errNoop
		}
		n = v
		chain, keys = append(chain, n), append(keys, k)
	}
	// Walk up while the parent would be left empty.
	i := len(chain) - 1
	for i > 1 && keys[i-1] != nil && chain[i-1].node.Kind == yaml.MappingNode && len(chain[i-1].node.Content) == 2 {
		i--
	}
	if keys[i] == nil {
		return errors.New("removing list items is not supported")
	}
	return t.removeEntry(chain[i-1], keys[i], chain[i])
}

// removeEntry deletes key k (value v) from mapping m.
func (t *text) removeEntry(m at, k *yaml.Node, v at) error {
	if isFlow(m.node) || m.flow {
		return t.flowRemove(m.node, k, v)
	}
	start, end := k.Line-1, t.entryEnd(k, v.node)
	line := t.lines[start]
	prefix := line[:t.col(k)]
	onDash := strings.TrimSpace(prefix) != "" // "- key: v": the dash opens a list item
	t.remove(start, end)
	if !onDash {
		return nil
	}
	if len(m.node.Content) == 2 { // the item is now empty
		t.insert(start-1, []string{prefix + "{}"})
		return nil
	}
	// Hand the dash to the next entry of the same item.
	next := t.lines[start]
	t.lines[start] = prefix + next[min(len(prefix), indentOf(next)):]
	return nil
}

// flowRemove deletes "k: v" from a one-line flow mapping.
func (t *text) flowRemove(m, k *yaml.Node, v at) error {
	line := t.lines[k.Line-1]
	if v.node.Line != k.Line || m.Line != k.Line {
		return errors.New("flow mapping spans lines; winkube fix edits only single-line flow collections")
	}
	from := t.col(k)
	vc := t.col(v.node)
	to := scalarEnd(line, vc, true)
	if v.node.Kind != yaml.ScalarNode {
		c, err := closing(line, vc)
		if err != nil {
			return err
		}
		to = c + 1
	}
	rest := strings.TrimLeft(line[to:], " ")
	switch {
	case strings.HasPrefix(rest, ","):
		to = len(line) - len(strings.TrimLeft(rest[1:], " "))
	default:
		before := strings.TrimRight(line[:from], " ")
		if strings.HasSuffix(before, ",") {
			from = len(before) - 1
		}
	}
	t.lines[k.Line-1] = line[:from] + line[to:]
	return nil
}
