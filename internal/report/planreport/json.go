package planreport

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/plan"
)

// APIVersion and Kind identify the JSON form of a plan: winkube's one
// API version (manifest.APIVersion), as its other documents carry.
const (
	APIVersion = manifest.APIVersion
	Kind       = "PlanReport"
)

type jsonReport struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	*plan.Report
}

// WriteJSON writes the report as one indented JSON document.
func WriteJSON(w io.Writer, r *plan.Report) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	if err := e.Encode(jsonReport{APIVersion, Kind, r}); err != nil {
		return fmt.Errorf("writing the JSON plan: %w", err)
	}
	return nil
}
