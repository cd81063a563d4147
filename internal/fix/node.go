package fix

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// at is a node and whether it sits inside a flow collection, where plain
// scalars end at ",", "]" and "}" and new entries are written in flow
// style.
type at struct {
	node *yaml.Node
	flow bool
}

func (a at) child(n *yaml.Node) at { return at{n, a.flow || isFlow(a.node)} }

// rootOf is the object an edit addresses in a document's tree: the
// document's mapping, or item of a List.
func rootOf(doc *yaml.Node, item int) (at, error) {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return at{}, errors.New("document is not a mapping")
	}
	root := at{node: doc.Content[0]}
	if item < 0 {
		return root, nil
	}
	items := flattenNodes(root, nil)
	if item >= len(items) {
		return at{}, fmt.Errorf("list item %d not found", item)
	}
	return items[item], nil
}

// flattenNodes lists the objects of List a, Lists among its items replaced
// by their own items, in the order manifest.Decode numbers them.
func flattenNodes(a at, out []at) []at {
	items := mapGet(a.node, "items")
	if items == nil || items.Kind != yaml.SequenceNode {
		return out
	}
	for _, it := range items.Content {
		c := a.child(items).child(it)
		if isListNode(it) {
			out = flattenNodes(c, out)
			continue
		}
		out = append(out, c)
	}
	return out
}

func isListNode(n *yaml.Node) bool {
	k := mapGet(n, "kind")
	return k != nil && k.Kind == yaml.ScalarNode && strings.HasSuffix(k.Value, "List") && mapGet(n, "items") != nil
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
		if m.Content[i].Value == k && m.Content[i].Tag != "!!merge" {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func isFlow(n *yaml.Node) bool { return n.Style&yaml.FlowStyle != 0 }

// shared refuses a node whose text other nodes share: an anchored node
// (every alias of it would change too) or an alias. Editing it in place
// would change objects the fix is not about.
func shared(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.AliasNode:
		return fmt.Errorf("line %d: the field is a YAML alias (*%s); winkube fix does not edit through aliases: expand it by hand, then run fix again", n.Line, n.Value)
	case n.Anchor != "":
		return fmt.Errorf("line %d: the field is behind the YAML anchor &%s, so editing it would change every alias of it too; expand the aliases by hand, then run fix again", n.Line, n.Anchor)
	}
	return nil
}

// merged refuses a step into a mapping that takes keys from a merge key:
// what the text says and what the object holds differ there.
func merged(m *yaml.Node, name string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag == "!!merge" {
			return fmt.Errorf("line %d: %s is in a mapping that takes keys from a YAML merge key (<<); winkube fix does not edit merged mappings: write the keys out, then run fix again", m.Line, name)
		}
	}
	return nil
}

// step follows one path segment from a, refusing shared nodes. It returns
// the key (nil for a list index) and the value, or a nil value when the
// step is missing.
func step(a at, s segment) (k *yaml.Node, v at, err error) {
	if err := shared(a.node); err != nil {
		return nil, at{}, err
	}
	if idx, ok := s.Index(); ok && a.node.Kind == yaml.SequenceNode {
		if idx >= len(a.node.Content) {
			return nil, at{}, fmt.Errorf("list index %d out of range", idx)
		}
		return nil, a.child(a.node.Content[idx]), nil
	}
	if a.node.Kind != yaml.MappingNode {
		return nil, at{}, fmt.Errorf("%s is not a mapping", s.Name)
	}
	kk, vv := mapEntry(a.node, s.Name)
	if kk == nil {
		if err := merged(a.node, s.Name); err != nil {
			return nil, at{}, err
		}
		return nil, at{}, nil
	}
	if err := shared(vv); err != nil {
		return nil, at{}, err
	}
	return kk, a.child(vv), nil
}
