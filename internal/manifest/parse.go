package manifest

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// maxNodes bounds the nodes that aliases may add to a document, so a
// "billion laughs" document fails fast instead of eating memory. Nodes
// written out are not counted against it: a List of 30,000 Pods is
// large, not an attack, and its size is bounded by MaxDocumentSize.
const maxNodes = 1 << 20

// parseYAML parses one document into a Node tree. line is the document's
// first line in its file; positions in the result are file positions.
// The fast parser handles the block-style YAML that manifests are written
// in; anything it does not fully understand goes to yaml.v3, which gives
// the same tree, slower.
func parseYAML(file string, line int, data []byte) (*Node, *Error) {
	if n, ok := parseFast(line, data); ok {
		return n, nil
	}
	return parseSlow(file, line, data)
}

// parseSlow parses with yaml.v3.
func parseSlow(file string, line int, data []byte) (*Node, *Error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, line, data, err)
	}
	return fromTree(file, line, &doc)
}

// fromTree converts a yaml.v3 document, parsed from the text of a
// document whose first line is line, into a Node tree with file positions.
func fromTree(file string, line int, doc *yaml.Node) (*Node, *Error) {
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil // empty document
	}
	limit := literalNodes(doc.Content[0]) + maxNodes
	c := converter{file: file, offset: line - 1, limit: limit}
	if s := (sizer{limit: limit}); s.size(doc.Content[0]) > limit {
		return nil, c.errorf(s.at(doc.Content[0]), "remove the recursive or repeated aliases", "aliases expand the document by more than %d nodes (excessive aliasing)", maxNodes)
	}
	return c.convert(doc.Content[0])
}

// sizer counts the nodes a tree expands to when its aliases are followed,
// without expanding them: each anchored node is counted once and its size
// reused, so a billion laughs costs a few hundred steps, and an alias
// inside its own anchor counts as too many.
type sizer struct {
	limit int
	memo  map[*yaml.Node]int // alias target -> size; -1 while being counted
	worst *yaml.Node         // where to report: a cyclic alias, or the innermost collection that is too big
}

func (s *sizer) size(y *yaml.Node) int {
	if y.Kind == yaml.AliasNode && y.Alias != nil {
		if s.memo == nil {
			s.memo = map[*yaml.Node]int{}
		}
		n, seen := s.memo[y.Alias]
		if !seen {
			s.memo[y.Alias] = -1
			n = s.size(y.Alias)
			s.memo[y.Alias] = n
		}
		if n < 0 {
			n = s.limit + 1
			if s.worst == nil {
				s.worst = y
			}
		}
		return 1 + n
	}
	n := 1
	for _, c := range y.Content {
		if n += s.size(c); n > s.limit {
			if s.worst == nil { // the innermost collection that is too big
				s.worst = y
			}
			return n
		}
	}
	return n
}

// literalNodes counts the nodes as written, not following aliases.
func literalNodes(y *yaml.Node) int {
	n := 1
	for _, c := range y.Content {
		n += literalNodes(c)
	}
	return n
}

// at is where to report an excessive expansion.
func (s *sizer) at(root *yaml.Node) *yaml.Node {
	if s.worst != nil {
		return s.worst
	}
	return root
}

type converter struct {
	file   string
	offset int
	nodes  int
	limit  int
}

func (c *converter) errorf(n *yaml.Node, hint, format string, args ...any) *Error {
	return &Error{File: c.file, Line: n.Line + c.offset, Column: n.Column, Msg: fmt.Sprintf(format, args...), Hint: hint, Class: ErrSyntax}
}

func (c *converter) convert(y *yaml.Node) (*Node, *Error) {
	c.nodes++
	if c.nodes > c.limit {
		return nil, c.errorf(y, "remove the recursive or repeated aliases", "aliases expand the document by more than %d nodes (excessive aliasing)", maxNodes)
	}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, c.errorf(y, "", "unknown alias %q", y.Value)
		}
		return c.convert(y.Alias)
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &Node{Kind: ScalarNode, Tag: TagNull}, nil
		}
		return c.convert(y.Content[0])
	case yaml.MappingNode:
		return c.mapping(y)
	case yaml.SequenceNode:
		n := &Node{Kind: SequenceNode, Line: y.Line + c.offset, Column: y.Column, Content: make([]*Node, 0, len(y.Content))}
		for _, item := range y.Content {
			v, err := c.convert(item)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		return n, nil
	}
	return &Node{Kind: ScalarNode, Tag: scalarTag(y), Value: y.Value, Line: y.Line + c.offset, Column: y.Column}, nil
}

// keySeen is where a mapping's key sits in Content, and whether it came
// from a merge key (an explicit key replaces a merged one, in any order).
type keySeen struct {
	at     int
	merged bool
}

func (c *converter) mapping(y *yaml.Node) (*Node, *Error) {
	n := &Node{Kind: MappingNode, Line: y.Line + c.offset, Column: y.Column, Content: make([]*Node, 0, len(y.Content))}
	seen := make(map[string]keySeen, len(y.Content)/2)
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			if err := c.merge(n, seen, v); err != nil {
				return nil, err
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, c.errorf(k, "Kubernetes objects only have string keys", "mapping key is not a scalar")
		}
		prev, dup := seen[k.Value]
		if dup && !prev.merged {
			return nil, c.errorf(k, "remove one of them; Kubernetes rejects duplicate fields", "mapping key %q already defined at line %d", k.Value, n.Content[prev.at].Line)
		}
		key := &Node{Kind: ScalarNode, Tag: TagStr, Value: k.Value, Line: k.Line + c.offset, Column: k.Column}
		val, err := c.convert(v)
		if err != nil {
			return nil, err
		}
		if dup {
			n.Content[prev.at], n.Content[prev.at+1] = key, val
			seen[k.Value] = keySeen{at: prev.at}
			continue
		}
		seen[k.Value] = keySeen{at: len(n.Content)}
		n.Content = append(n.Content, key, val)
	}
	return n, nil
}

// merge applies a YAML merge key (<<: *anchor): keys already present win,
// and earlier mappings of a merged list win over later ones.
func (c *converter) merge(n *Node, seen map[string]keySeen, v *yaml.Node) *Error {
	src, err := c.convert(v)
	if err != nil {
		return err
	}
	sources := []*Node{src}
	if src.Kind == SequenceNode {
		sources = src.Content
	}
	for _, s := range sources {
		if s.Kind != MappingNode {
			return c.errorf(v, "merge a mapping, or a list of mappings", "merge key value is not a mapping")
		}
		for i := 0; i+1 < len(s.Content); i += 2 {
			if _, ok := seen[s.Content[i].Value]; ok {
				continue
			}
			seen[s.Content[i].Value] = keySeen{at: len(n.Content), merged: true}
			n.Content = append(n.Content, s.Content[i], s.Content[i+1])
		}
	}
	return nil
}

func scalarTag(y *yaml.Node) Tag {
	switch y.ShortTag() {
	case "!!int":
		return TagInt
	case "!!float":
		return TagFloat
	case "!!bool":
		return TagBool
	case "!!null":
		return TagNull
	}
	return TagStr
}
