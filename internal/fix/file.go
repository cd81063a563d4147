package fix

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/winkube/winkube/internal/manifest"
)

// file is a file being fixed: its UTF-8 text, split into documents once
// and each document parsed once into its located tree (Document.Tree).
// The engine lints these documents (manifest.DocumentsInput) and the
// editor edits from the same trees, so a pass reads no text again; an edit
// re-parses only the document it changed, and that tree serves the next
// edit, the check that the document reads back as intended, and the next
// pass.
type file struct {
	name string
	text []byte
	json bool
	docs []manifest.Document
}

// parsed is a document's text and its tree.
type parsed struct {
	src  []byte
	tree *yaml.Node
}

// readFile splits text into its documents and parses each.
func readFile(name string, text []byte, isJSON bool) (*file, error) {
	docs, err := manifest.Split(name, text, isJSON)
	if err != nil {
		return nil, err
	}
	f := &file{name: name, text: text, json: isJSON, docs: docs}
	for i := range docs {
		f.parse(&docs[i])
	}
	return f, nil
}

// parse gives d the tree of its text. A document that does not parse
// keeps none: Decode reads its Data and reports why, as lint does.
func (f *file) parse(d *manifest.Document) {
	if d.Err != nil {
		return
	}
	if tree, err := manifest.ParseTree(f.text[d.Start:d.End]); err == nil {
		d.Tree = tree
	}
}

// input is the file as the engine reads it: the documents read already.
func (f *file) input() manifest.Input { return manifest.DocumentsInput(f.name, f.docs) }

// update makes text, the edited file, the file's text. An edit must never
// add or merge documents. Each document keeps a tree of its text: the
// editor's for an edited one, the one it had for a document whose text
// did not change, a new one only where the split moved (never, unless a
// fix misbehaves).
func (f *file) update(text []byte, edited map[int]parsed) error {
	docs, err := manifest.Split(f.name, text, f.json)
	if err != nil {
		return fmt.Errorf("the fixed text cannot be read: %w", err)
	}
	if len(docs) != len(f.docs) {
		return fmt.Errorf("the fixed text has %d documents instead of %d", len(docs), len(f.docs))
	}
	before, olds := f.text, f.docs
	f.text, f.docs = text, docs
	for i := range docs {
		d, old := &docs[i], olds[i]
		src := text[d.Start:d.End]
		e, ok := edited[i]
		switch {
		case ok && bytes.Equal(src, e.src):
			d.Tree = e.tree
		case !ok && bytes.Equal(src, before[old.Start:old.End]):
			d.Tree = old.Tree
		default:
			f.parse(d)
		}
	}
	return nil
}
