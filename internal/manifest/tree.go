package manifest

import (
	"context"

	"gopkg.in/yaml.v3"
)

// ParseTree reads one document's text into the located tree a caller
// keeps between reads of the same text: yaml.v3's node, with the
// positions, styles, anchors and aliases as written. fix keeps it and edits
// from it; Decode reads a Document's Tree instead of its Data when set.
// Positions are relative to the text's first line.
func ParseTree(text []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// root is the document's Node tree: converted from its Tree when the
// caller parsed one, parsed from its Data otherwise.
func (d Document) root() (*Node, *Error) {
	if d.Tree != nil {
		return fromTree(d.File, d.Line, d.Tree)
	}
	return parseYAML(d.File, d.Line, d.Data)
}

// DocumentsInput is an input whose documents are split, and parsed
// (Document.Tree), already: fix lints the text it edits this way without
// reading it again.
func DocumentsInput(name string, docs []Document) Input {
	return Input{Name: name, docs: docs, split: true}
}

// eachDocument calls fn for the documents of a DocumentsInput.
func eachDocument(ctx context.Context, in Input, fn func(Document)) *Error {
	for _, d := range in.docs {
		if ctx.Err() != nil {
			err := context.Cause(ctx)
			return &Error{File: in.Name, Line: d.Line, Msg: "reading: " + err.Error(), Class: ErrRead, Err: err}
		}
		fn(d)
	}
	return nil
}
