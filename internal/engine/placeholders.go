package engine

import (
	"errors"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// One finding per cause for placeholders: a field whose value is an
// unfilled placeholder (REPLACE_WITH_NAME, <image-name>) is reported once,
// by load-error, not again by a rule that judges the value's format
// (invalid-object-name on metadata.name, say).

// position is a line and column of a document's text.
type position struct{ line, col int }

// placeholderFields returns where a document's placeholder load errors
// point: at the values themselves.
func placeholderFields(errs []*manifest.Error) map[position]bool {
	var ph map[position]bool
	for _, e := range errs {
		if errors.Is(e, manifest.ErrPlaceholder) {
			if ph == nil {
				ph = map[position]bool{}
			}
			ph[position{e.Line, e.Column}] = true
		}
	}
	return ph
}

// withoutPlaceholderFields drops the findings of o whose field holds one
// of the placeholders at ph.
func withoutPlaceholderFields(o *manifest.Object, fs []rule.Finding, ph map[position]bool) []rule.Finding {
	if len(ph) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if n := valueAt(o.Root, f.Path); f.Object != o || n == nil || !ph[position{n.Line, n.Column}] {
			out = append(out, f)
		}
	}
	return out
}

// valueAt returns the node at a field path, nil when there is none.
func valueAt(n *manifest.Node, path string) *manifest.Node {
	if path == "" {
		return nil
	}
	for _, seg := range manifest.SplitPath(path) {
		switch {
		case n == nil:
			return nil
		case seg.Bracket && n.Kind == manifest.SequenceNode:
			i, ok := seg.Index()
			if !ok || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		case n.Kind == manifest.MappingNode:
			n = n.Get(seg.Name)
		default:
			return nil
		}
	}
	return n
}
