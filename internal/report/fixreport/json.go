package fixreport

import (
	"bytes"
	"io"
	"slices"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
)

// APIVersion and Kind identify the JSON form of a fix run.
const (
	APIVersion = manifest.APIVersion
	Kind       = "FixReport"
)

type jsonReport struct {
	report.Header
	Files []jsonFile `json:"files"`
	// Skipped are the rules whose unsafe fixes were not applied (--unsafe
	// or --rule ID would).
	Skipped []string `json:"skipped"`
}

type jsonFile struct {
	File     string   `json:"file"`
	Changed  bool     `json:"changed"`
	Fixes    []string `json:"fixes"`
	Failures []string `json:"failures"`
}

// WriteJSON writes a FixReport (apiVersion winkube.io/v1alpha1): per file
// whether it changed, the fixes applied and those that could not be made,
// and the rules whose unsafe fixes were skipped.
func WriteJSON(w io.Writer, before []fix.File, res *fix.Result) error {
	out := jsonReport{Header: report.Header{APIVersion: APIVersion, Kind: Kind}, Files: make([]jsonFile, len(res.Files)), Skipped: []string{}}
	for i, fr := range res.Files {
		out.Files[i] = jsonFile{File: fr.Name, Changed: !bytes.Equal(before[i].Data, fr.After),
			Fixes: report.NonNil(fr.Notes), Failures: report.NonNil(fr.Failures)}
	}
	for _, f := range res.Skipped {
		if !slices.Contains(out.Skipped, f.Rule) {
			out.Skipped = append(out.Skipped, f.Rule)
		}
	}
	slices.Sort(out.Skipped)
	return report.WriteJSON(w, out)
}
