package report

import (
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/rule"
)

// Report is what a lint run produced.
type Report struct {
	Findings []rule.Finding
	Rules    []*rule.Rule // the rules that ran, for SARIF metadata
	Files    int
	Objects  int
	Tool     string // winkube version
}

// Counts tallies unsuppressed findings by severity.
type Counts struct {
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Infos      int `json:"infos"`
	Suppressed int `json:"suppressed"`
}

// Count tallies the report's findings.
func (r *Report) Count() Counts {
	var c Counts
	for _, f := range r.Findings {
		switch {
		case f.Suppressed:
			c.Suppressed++
		case f.Severity == rule.Error:
			c.Errors++
		case f.Severity == rule.Warning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
	return c
}

// Formats lists the output formats.
var Formats = []string{"text", "json", "sarif", "github"}

// Options tunes a writer.
type Options struct {
	Color bool // ANSI colour, text only
}

// Write renders the report in format.
func Write(w io.Writer, format string, r *Report, opts Options) error {
	switch format {
	case "text":
		return Text(w, r, opts)
	case "json":
		return JSON(w, r)
	case "sarif":
		return SARIF(w, r)
	case "github":
		return GitHub(w, r)
	}
	return fmt.Errorf("unknown output format %q: want one of %v", format, Formats)
}
