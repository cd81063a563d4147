package report

import (
	"io"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// JSONAPIVersion versions the JSON report; docs/json-report.md describes it.
const JSONAPIVersion = manifest.APIVersion

type jsonReport struct {
	Header
	Tool     string        `json:"tool,omitempty"`
	Summary  jsonSummary   `json:"summary"`
	Findings []jsonFinding `json:"findings"`
}

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Counts
}

type jsonFinding struct {
	Rule       string     `json:"rule"`
	Severity   string     `json:"severity"`
	Message    string     `json:"message"`
	Hint       string     `json:"hint,omitempty"`
	FieldPath  string     `json:"fieldPath"`
	File       string     `json:"file"`
	Line       int        `json:"line"`
	Column     int        `json:"column"`
	Object     jsonObject `json:"object"`
	Suppressed bool       `json:"suppressed"`
	Fix        *jsonFix   `json:"fix,omitempty"`
	// Related holds the rendered position of a finding in a Helm chart
	// or kustomization, whose file and line are the template's or base's.
	Related []jsonLocation `json:"related,omitempty"`
}

type jsonLocation struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

type jsonObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

type jsonFix struct {
	Title string     `json:"title"`
	Safe  bool       `json:"safe"`
	Edits []jsonEdit `json:"edits"`
}

type jsonEdit struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// JSON writes the versioned JSON report. Suppressed findings are included
// with "suppressed": true.
func JSON(w io.Writer, r *Report) error {
	out := jsonReport{Header: Header{APIVersion: JSONAPIVersion, Kind: "LintReport"}, Tool: r.Tool,
		Summary: jsonSummary{Files: r.Files, Objects: r.Objects, Counts: r.Count()}, Findings: []jsonFinding{}}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, toJSON(f))
	}
	return WriteJSON(w, out)
}

// FindingsJSON returns findings in the JSON report's form, for reports
// that embed lint's finding shape (audit).
func FindingsJSON(fs []rule.Finding) any {
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, toJSON(f))
	}
	return out
}

func toJSON(f rule.Finding) jsonFinding {
	j := jsonFinding{Rule: f.Rule, Severity: f.Severity.String(), Message: f.Message, Hint: f.Hint, FieldPath: f.Path,
		File: f.File, Line: f.Line, Column: f.Column, Suppressed: f.Suppressed}
	if o := f.Object; o != nil {
		j.Object = jsonObject{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	}
	for _, l := range f.Related {
		j.Related = append(j.Related, jsonLocation{File: l.File, Line: l.Line, Column: l.Column, Message: l.Message})
	}
	if f.Fix != nil {
		fx := &jsonFix{Title: f.Fix.Title, Safe: f.Fix.Safe}
		for _, e := range f.Fix.Edits {
			fx.Edits = append(fx.Edits, jsonEdit{Op: string(e.Op), Path: e.Path, Value: e.Value})
		}
		j.Fix = fx
	}
	return j
}
