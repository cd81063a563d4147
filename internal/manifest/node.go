package manifest

import (
	"strconv"
	"strings"
)

// Kind is the shape of a Node.
type Kind uint8

const (
	ScalarNode Kind = iota
	MappingNode
	SequenceNode
)

// Tag is the resolved type of a scalar.
type Tag uint8

const (
	TagStr Tag = iota
	TagInt
	TagFloat
	TagBool
	TagNull
)

// Node is a YAML or JSON value with the position it was read from. Mappings
// keep their keys in order: Content holds key, value, key, value, ...
type Node struct {
	Kind    Kind
	Tag     Tag
	Value   string
	Line    int
	Column  int
	Content []*Node
}

// Get returns the value for key in a mapping node, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Key returns the key node for key in a mapping node, or nil.
func (n *Node) Key(key string) *Node {
	if n == nil || n.Kind != MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// String returns the scalar value of the node at key, or "".
func (n *Node) String(key string) string {
	if v := n.Get(key); v != nil && v.Kind == ScalarNode && v.Tag != TagNull {
		return v.Value
	}
	return ""
}

// IsNull reports whether the node is absent or an explicit null.
func (n *Node) IsNull() bool {
	return n == nil || (n.Kind == ScalarNode && n.Tag == TagNull)
}

// AppendJSON renders the node as JSON. Scalars are rendered by their
// resolved tag, so `replicas: 3` becomes a number and `name: "3"` a string.
func (n *Node) AppendJSON(b []byte) []byte {
	switch n.Kind {
	case MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n.Content[i].Value)
			b = append(b, ':')
			b = n.Content[i+1].AppendJSON(b)
		}
		return append(b, '}')
	case SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.AppendJSON(b)
		}
		return append(b, ']')
	}
	switch n.Tag {
	case TagNull:
		return append(b, "null"...)
	case TagBool:
		return strconv.AppendBool(b, strings.EqualFold(n.Value, "true"))
	case TagInt:
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return strconv.AppendInt(b, v, 10)
		}
		if v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return strconv.AppendUint(b, v, 10)
		}
		return appendJSONString(b, n.Value)
	case TagFloat:
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		return appendJSONString(b, n.Value)
	}
	return appendJSONString(b, n.Value)
}

// appendJSONString quotes s as a JSON string (strconv.Quote is Go syntax,
// which differs for some control and non-ASCII characters).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
