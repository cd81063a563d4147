package engine

import (
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// toSources points the findings of rendered inputs (a Helm chart's
// templates, a kustomization's output) at the template or base line the
// field came from, keeping the rendered position as a related location:
// the user edits the source, but the rendered text is what was checked.
func toSources(fs []rule.Finding, inputs []manifest.Input) {
	origins := map[string]manifest.Origin{}
	for _, in := range inputs {
		if in.Origin != nil {
			origins[in.Name] = in.Origin
		}
	}
	if len(origins) == 0 {
		return
	}
	for i := range fs {
		f := &fs[i]
		origin := origins[f.File]
		if origin == nil || f.Line <= 0 {
			continue
		}
		file, line, col, ok := origin(f.Line, f.Path)
		if !ok {
			continue
		}
		if col < 0 { // the origin keeps the rendered column
			col = f.Column
		}
		f.Related = append(f.Related, rule.Location{File: f.File, Line: f.Line, Column: f.Column, Message: "rendered"})
		f.File, f.Line, f.Column = file, line, col
	}
	// Rendered order is not source order: sort again as finish does.
	sortBySource(fs)
}
