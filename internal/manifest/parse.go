package manifest

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// maxNodes bounds the nodes one document may expand to, aliases included,
// so a "billion laughs" document fails fast instead of eating memory.
const maxNodes = 1 << 20

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses one document into a Node tree. line is the document's
// first line in its file; positions in the result are file positions.
func parseYAML(file string, line int, data []byte) (*Node, *Error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, line, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil // empty document
	}
	c := converter{file: file, offset: line - 1}
	n, err := c.convert(doc.Content[0])
	if err != nil {
		return nil, err
	}
	return n, nil
}

func yamlError(file string, line int, data []byte, err error) *Error {
	e := &Error{File: file, Line: line, Msg: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		l, _ := strconv.Atoi(m[1])
		e.Line = line + l - 1
		e.Msg = m[2]
	}
	e.Msg = "invalid YAML: " + e.Msg
	switch {
	case bytes.Contains(data, []byte("{{")):
		e.Hint = "this looks like a Helm template; render it first: helm template ./chart | winkube lint -"
	case bytes.Contains(data, []byte("\t")) && bytes.Contains([]byte(err.Error()), []byte("cannot start any token")):
		e.Hint = "YAML does not allow tabs for indentation; use spaces"
	default:
		e.Hint = "check the indentation and quoting on this line and the one before it"
	}
	return e
}

type converter struct {
	file   string
	offset int
	nodes  int
}

func (c *converter) errorf(n *yaml.Node, hint, format string, args ...any) *Error {
	return &Error{File: c.file, Line: n.Line + c.offset, Column: n.Column, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

func (c *converter) convert(y *yaml.Node) (*Node, *Error) {
	c.nodes++
	if c.nodes > maxNodes {
		return nil, c.errorf(y, "remove the recursive or repeated aliases", "document expands to more than %d nodes (excessive aliasing)", maxNodes)
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

func (c *converter) mapping(y *yaml.Node) (*Node, *Error) {
	n := &Node{Kind: MappingNode, Line: y.Line + c.offset, Column: y.Column, Content: make([]*Node, 0, len(y.Content))}
	seen := make(map[string]int, len(y.Content)/2)
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
		if prev, dup := seen[k.Value]; dup {
			return nil, c.errorf(k, "remove one of them; Kubernetes rejects duplicate fields", "mapping key %q already defined at line %d", k.Value, prev)
		}
		seen[k.Value] = k.Line + c.offset
		key := &Node{Kind: ScalarNode, Tag: TagStr, Value: k.Value, Line: k.Line + c.offset, Column: k.Column}
		val, err := c.convert(v)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, key, val)
	}
	return n, nil
}

// merge applies a YAML merge key (<<: *anchor): keys already present win.
func (c *converter) merge(n *Node, seen map[string]int, v *yaml.Node) *Error {
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
			return c.errorf(v, "", "merge key value is not a mapping")
		}
		for i := 0; i+1 < len(s.Content); i += 2 {
			if _, ok := seen[s.Content[i].Value]; ok {
				continue
			}
			seen[s.Content[i].Value] = s.Content[i].Line
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
