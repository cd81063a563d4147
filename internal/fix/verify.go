package fix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// valueOf decodes a document's tree into plain values (maps with string
// keys, lists, scalars), aliases and merge keys resolved.
func valueOf(doc *yaml.Node) (any, error) {
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// verify checks that text, an edited document, and doc, its tree, read
// back as want: the edits were rendered as meant and touched nothing else.
func verify(text []byte, doc *yaml.Node, want any, isJSON bool) error {
	if isJSON && !jsonValid(text) {
		return errors.New("the fixed document is no longer valid JSON")
	}
	got, err := valueOf(doc)
	if err != nil {
		return fmt.Errorf("the fixed document does not parse: %w", err)
	}
	g, err := canonical(got)
	if err != nil {
		return err
	}
	w, err := canonical(want)
	if err != nil {
		return err
	}
	if !bytes.Equal(g, w) {
		return fmt.Errorf("the fixed document would not read back as intended (%s); the file is left as it was, please report this", firstDifference(got, want, ""))
	}
	return nil
}

func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the document holds values fix cannot compare (%v)", err)
	}
	return b, nil
}

// firstDifference names the first path where got and want differ.
func firstDifference(got, want any, path string) string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		for k, wv := range wm {
			gv, ok := gm[k]
			if !ok {
				return "missing " + join(path, k)
			}
			if d := firstDifference(gv, wv, join(path, k)); d != "" {
				return d
			}
		}
		for k := range gm {
			if _, ok := wm[k]; !ok {
				return "unexpected " + join(path, k)
			}
		}
		return ""
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok && len(gl) == len(wl) {
		for i := range wl {
			if d := firstDifference(gl[i], wl[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if bytes.Equal(g, w) {
		return ""
	}
	return fmt.Sprintf("%s is %s, want %s", strings.TrimPrefix(path, "."), g, w)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func jsonValid(b []byte) bool { return json.Valid(bytes.TrimSpace(b)) }

// intend applies e to the decoded document want, as the text edit means
// it: the object the edited text must read back as.
func intend(want any, e Edit) error {
	root, ok := want.(map[string]any)
	if !ok {
		return errors.New("document is not a mapping")
	}
	if e.Item >= 0 {
		items := flattenValues(root, nil)
		if e.Item >= len(items) {
			return fmt.Errorf("list item %d not found", e.Item)
		}
		if root, ok = items[e.Item].(map[string]any); !ok {
			return fmt.Errorf("list item %d is not a mapping", e.Item)
		}
	}
	_, err := patchOne(root, e.Edit, true)
	return err
}

// flattenValues is flattenNodes on decoded values.
func flattenValues(list map[string]any, out []any) []any {
	items, _ := list["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && isListValue(m) {
			out = flattenValues(m, out)
			continue
		}
		out = append(out, it)
	}
	return out
}

func isListValue(m map[string]any) bool {
	k, _ := m["kind"].(string)
	_, has := m["items"]
	return strings.HasSuffix(k, "List") && has
}
