package report

import (
	"encoding/json"
	"io"
)

// Header opens every JSON report winkube writes: its one API version
// (manifest.APIVersion) and the report's kind, so that a consumer can
// tell a LintReport from a PlanReport before reading on. Reports embed it,
// and its fields stay first in the document.
type Header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// NonNil returns s, or an empty slice where s is nil, so that a report
// writes a list as [] and never as null: consumers need not guess.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteJSON writes v as one JSON document indented by two spaces, the
// form of every JSON report and listing.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
