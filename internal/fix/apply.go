package fix

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

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
	byDoc := map[int][]Edit{}
	for _, e := range edits {
		byDoc[e.Doc] = append(byDoc[e.Doc], e)
	}
	var results []Applied
	if len(edits) == 0 {
		return data, nil
	}
	docs, err := manifest.Split(name, data, isJSON)
	if err != nil {
		return data, refuseAll(edits, err)
	}
	var out bytes.Buffer
	prev := int64(0)
	var refused error
	for _, d := range docs {
		es := byDoc[d.Index]
		delete(byDoc, d.Index)
		if len(es) == 0 {
			continue
		}
		src, rs, err := applyDoc(d, data[d.Start:d.End], es, isJSON)
		results = append(results, rs...)
		if err != nil && refused == nil {
			refused = err
		}
		out.Write(data[prev:d.Start])
		out.Write(src)
		prev = d.End
	}
	for doc, es := range byDoc {
		for _, e := range es {
			results = append(results, Applied{Edit: e, Err: fmt.Errorf("document %d not found", doc)})
		}
	}
	out.Write(data[prev:])
	sort.SliceStable(results, func(i, j int) bool { return results[i].Doc < results[j].Doc })
	if refused == nil {
		refused = sameDocuments(name, data, out.Bytes(), isJSON)
	}
	if refused != nil {
		return data, refuse(results, refused)
	}
	return out.Bytes(), results
}

// applyDoc applies one document's edits and checks the result reads back
// as the intended object; an error means the document must not change.
func applyDoc(d manifest.Document, text []byte, es []Edit, isJSON bool) ([]byte, []Applied, error) {
	var results []Applied
	if d.Err != nil {
		return text, refuseAll(es, d.Err), nil
	}
	jsonDoc := isJSON && jsonValid(text)
	want, err := decodeGeneric(text)
	if err != nil {
		return text, refuseAll(es, err), nil
	}
	src := string(text)
	for _, e := range es {
		next, err := applyEdit(src, e.Item, e.Edit, jsonDoc)
		switch {
		case errors.Is(err, errNoop):
			results = append(results, Applied{Edit: e})
		case err != nil:
			results = append(results, Applied{Edit: e, Err: err})
		default:
			if err := intend(want, e); err != nil {
				return text, results, fmt.Errorf("document %d: %s %s: %w", d.Index, e.Op, e.Path, err)
			}
			src = next
			results = append(results, Applied{Edit: e, Changed: true})
		}
	}
	if src == string(text) {
		return text, results, nil
	}
	if err := verify([]byte(src), want, jsonDoc); err != nil {
		return text, results, fmt.Errorf("line %d: %w", d.Line, err)
	}
	return []byte(src), results, nil
}

// sameDocuments checks that the edited file splits into as many documents
// as the original: an edit must never add or merge documents.
func sameDocuments(name string, before, after []byte, isJSON bool) error {
	a, err := manifest.Split(name, before, isJSON)
	if err != nil {
		return err
	}
	b, err := manifest.Split(name, after, isJSON)
	if err != nil {
		return fmt.Errorf("the fixed text cannot be read: %w", err)
	}
	if len(a) != len(b) {
		return fmt.Errorf("the fixed text has %d documents instead of %d", len(b), len(a))
	}
	return nil
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
