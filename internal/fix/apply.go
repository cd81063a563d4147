package fix

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// Edit is one field edit bound to a document of a file.
type Edit struct {
	Doc  int // document index in the file (manifest.Object.Doc)
	Item int // List item, or -1
	rule.Edit
	Rule  string // the rule whose fix this is
	Title string // the fix's title
}

// Applied reports what happened to one edit.
type Applied struct {
	Edit
	Changed bool  // false when the field already had the value
	Err     error // why the edit could not be made
}

// Apply applies the edits to the UTF-8 text of a YAML file. Documents
// without edits are copied byte for byte. When the result does not read
// back as the intended objects, Apply returns data unchanged and every
// edit carries the reason.
func Apply(data []byte, edits []Edit) ([]byte, []Applied) {
	return applyText("", data, edits, false)
}

// applyText applies edits to a file's text; isJSON marks a .json file,
// one document, edited as JSON.
func applyText(name string, data []byte, edits []Edit, isJSON bool) ([]byte, []Applied) {
	if len(edits) == 0 {
		return data, nil
	}
	f, err := readFile(name, data, isJSON)
	if err != nil {
		return data, refuseAll(edits, err)
	}
	rs := f.apply(edits)
	return f.text, rs
}

// apply applies the edits to the file's documents, each from the tree it
// has, and keeps the result when every edited document reads back as
// intended; otherwise the file stays as it was and the edits say why.
func (f *file) apply(edits []Edit) []Applied {
	if len(edits) == 0 {
		return nil
	}
	byDoc := map[int][]Edit{}
	for _, e := range edits {
		byDoc[e.Doc] = append(byDoc[e.Doc], e)
	}
	var results []Applied
	var out bytes.Buffer
	prev := int64(0)
	var refused error
	edited := map[int]parsed{}
	for _, d := range f.docs {
		es := byDoc[d.Index]
		delete(byDoc, d.Index)
		if len(es) == 0 {
			continue
		}
		src, tree, rs, err := applyDoc(d, f.text[d.Start:d.End], es, f.json)
		results = append(results, rs...)
		if err != nil && refused == nil {
			refused = err
		}
		edited[d.Index] = parsed{src, tree}
		out.Write(f.text[prev:d.Start])
		out.Write(src)
		prev = d.End
	}
	for doc, es := range byDoc {
		for _, e := range es {
			results = append(results, Applied{Edit: e, Err: fmt.Errorf("document %d not found", doc)})
		}
	}
	out.Write(f.text[prev:])
	sort.SliceStable(results, func(i, j int) bool { return results[i].Doc < results[j].Doc })
	if refused == nil && !bytes.Equal(out.Bytes(), f.text) {
		refused = f.update(out.Bytes(), edited)
	}
	if refused != nil {
		return refuse(results, refused)
	}
	return results
}

// applyDoc applies one document's edits and checks the result reads back
// as the intended object; an error means the document must not change.
// It returns the document's text and the tree of that text: the editor
// parses a document again only after an edit changed it.
func applyDoc(d manifest.Document, text []byte, es []Edit, isJSON bool) ([]byte, *yaml.Node, []Applied, error) {
	if d.Err != nil {
		return text, d.Tree, refuseAll(es, d.Err), nil
	}
	jsonDoc := isJSON && jsonValid(text)
	tree, err := d.Tree, error(nil)
	if tree == nil { // it did not parse: say why
		tree, err = manifest.ParseTree(text)
	}
	var want any
	if err == nil {
		want, err = valueOf(tree)
	}
	if err != nil {
		return text, d.Tree, refuseAll(es, fmt.Errorf("cannot read the document: %w", err)), nil
	}
	var results []Applied
	src, cur := string(text), tree
	for i, e := range es {
		next, err := applyEdit(src, cur, e.Item, e.Edit, jsonDoc)
		switch {
		case errors.Is(err, errNoop):
			results = append(results, Applied{Edit: e})
		case err != nil:
			results = append(results, Applied{Edit: e, Err: err})
		default:
			if err := intend(want, e); err != nil {
				return text, tree, results, fmt.Errorf("document %d: %s %s: %w", d.Index, e.Op, e.Path, err)
			}
			src = next
			results = append(results, Applied{Edit: e, Changed: true})
			if cur, err = manifest.ParseTree([]byte(src)); err != nil {
				for _, rest := range es[i+1:] {
					results = append(results, Applied{Edit: rest, Err: err})
				}
				return text, tree, results, fmt.Errorf("line %d: the fixed document does not parse: %w", d.Line, err)
			}
		}
	}
	if src == string(text) {
		return text, tree, results, nil
	}
	if err := verify([]byte(src), cur, want, jsonDoc); err != nil {
		return text, tree, results, fmt.Errorf("line %d: %w", d.Line, err)
	}
	return []byte(src), cur, results, nil
}

// refuseAll marks every edit as failed with err.
func refuseAll(es []Edit, err error) []Applied {
	out := make([]Applied, len(es))
	for i, e := range es {
		out[i] = Applied{Edit: e, Err: err}
	}
	return out
}

// refuse turns the edits that would have changed the file into failures:
// nothing of the file is written.
func refuse(rs []Applied, why error) []Applied {
	err := fmt.Errorf("not written: %w", why)
	for i := range rs {
		if rs[i].Changed {
			rs[i].Changed, rs[i].Err = false, err
		}
	}
	return rs
}
