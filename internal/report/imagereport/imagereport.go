package imagereport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/winsupport"
)

// Row is one image against every pool.
type Row struct {
	Ref       string                     `json:"ref"`
	Sandbox   bool                       `json:"sandbox,omitempty"` // a pool's sandbox (pause) image
	Digest    string                     `json:"digest,omitempty"`
	Index     bool                       `json:"index,omitempty"`
	Platforms []winsupport.PlatformEntry `json:"platforms,omitempty"`
	Error     string                     `json:"error,omitempty"`
	Hint      string                     `json:"hint,omitempty"`
	Pools     []Pull                     `json:"pools,omitempty"`
}

// Pull is what a pool's node does with the image.
type Pull struct {
	Pool    string `json:"pool"`
	OS      string `json:"os"`
	Build   string `json:"build,omitempty"`
	Process string `json:"process"`          // the entry pulled, or the runtime's error
	HyperV  string `json:"hyperv,omitempty"` // Windows pools only
	OK      bool   `json:"ok"`               // process isolation starts it
}

// Text writes a table of every image against every pool, then the images
// that could not be resolved.
func Text(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tPOOL\tPROCESS ISOLATION\tHYPER-V ISOLATION")
	var failed []Row
	for _, r := range rows {
		if r.Error != "" {
			failed = append(failed, r)
			continue
		}
		for _, p := range r.Pools {
			pool := p.Pool
			if p.Build != "" {
				pool += " (" + p.Build + ")"
			}
			hv := p.HyperV
			if hv == "" {
				hv = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", report.Clean(label(r)), report.Clean(pool), report.Clean(p.Process), report.Clean(hv))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\n%d image(s) could not be resolved:\n", len(failed))
	}
	for _, r := range failed {
		fmt.Fprintf(w, "  %s: %s\n    %s\n", report.Clean(label(r)), report.Clean(r.Error), report.Clean(r.Hint))
	}
	return nil
}

func label(r Row) string {
	if r.Sandbox {
		return r.Ref + " (sandbox)"
	}
	return r.Ref
}

// JSON writes the versioned image report.
func JSON(w io.Writer, rows []Row) error {
	return report.WriteJSON(w, struct {
		report.Header
		Images []Row `json:"images"`
	}{report.Header{APIVersion: manifest.APIVersion, Kind: "ImageReport"}, rows})
}
