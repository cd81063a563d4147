package planreport

import (
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/report"
)

// APIVersion and Kind identify the JSON form of a plan: winkube's one
// API version (manifest.APIVersion), as its other documents carry.
const (
	APIVersion = manifest.APIVersion
	Kind       = "PlanReport"
)

type jsonReport struct {
	report.Header
	*plan.Report
}

// WriteJSON writes the report as one indented JSON document.
func WriteJSON(w io.Writer, r *plan.Report) error {
	if err := report.WriteJSON(w, jsonReport{report.Header{APIVersion: APIVersion, Kind: Kind}, r}); err != nil {
		return fmt.Errorf("writing the JSON plan: %w", err)
	}
	return nil
}
