package fixreport

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
)

// APIVersion and Kind identify the JSON form of a fix run.
const (
	APIVersion = manifest.APIVersion
	Kind       = "FixReport"
)

type jsonReport struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Files      []jsonFile `json:"files"`
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
	out := jsonReport{APIVersion: APIVersion, Kind: Kind, Files: make([]jsonFile, len(res.Files)), Skipped: []string{}}
	for i, fr := range res.Files {
		out.Files[i] = jsonFile{File: fr.Name, Changed: !bytes.Equal(before[i].Data, fr.After),
			Fixes: nonNil(fr.Notes), Failures: nonNil(fr.Failures)}
	}
	for _, f := range res.Skipped {
		if !slices.Contains(out.Skipped, f.Rule) {
			out.Skipped = append(out.Skipped, f.Rule)
		}
	}
	slices.Sort(out.Skipped)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
