package auditreport

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/simulate"
)

// Formats lists the audit's output formats.
var Formats = []string{"text", "json", "sarif", "html"}

// APIVersion and Kind identify the JSON audit report; docs/audit.md
// describes it.
const (
	APIVersion = manifest.APIVersion
	Kind       = "AuditReport"
)

// Write renders the result in format.
func Write(w io.Writer, format string, res *audit.Result, tool string, opts report.Options) error {
	switch format {
	case "text":
		return Text(w, res, tool, opts)
	case "json":
		return JSON(w, res, tool)
	case "sarif":
		return report.SARIF(w, lintReport(res, tool))
	case "html":
		return HTML(w, res, tool)
	}
	return fmt.Errorf("unknown output format %q: want one of %v", format, Formats)
}

func lintReport(res *audit.Result, tool string) *report.Report {
	return &report.Report{Findings: res.Findings, Rules: res.Rules, Objects: res.Objects, Tool: tool}
}

type jsonReport struct {
	report.Header
	Tool       string       `json:"tool,omitempty"`
	Server     string       `json:"serverVersion"`
	Model      string       `json:"kubernetesVersion"`
	Summary    jsonSummary  `json:"summary"`
	Areas      []audit.Area `json:"areas"`
	Findings   any          `json:"findings"`
	Simulation *jsonSim     `json:"simulation,omitempty"`
	Notes      []string     `json:"notes,omitempty"`
}

type jsonSummary struct {
	Nodes   int `json:"nodes"`
	Pods    int `json:"pods"`
	Objects int `json:"objects"`
	report.Counts
}

type jsonSim struct {
	Headroom []audit.Headroom     `json:"headroom"`
	Pools    []simulate.PoolUsage `json:"pools"`
	Notes    []string             `json:"notes,omitempty"`
}

// JSON writes the versioned JSON report. Findings have lint's shape; a
// live object's file, line and column are empty and its location is the
// object and fieldPath.
func JSON(w io.Writer, res *audit.Result, tool string) error {
	out := jsonReport{Header: report.Header{APIVersion: APIVersion, Kind: Kind}, Tool: tool, Server: res.Server, Model: res.Model.V.String(),
		Summary: jsonSummary{Nodes: res.Nodes, Pods: res.Pods, Objects: res.Objects, Counts: lintReport(res, tool).Count()},
		Areas:   res.Areas, Findings: report.FindingsJSON(res.Findings), Notes: res.Notes}
	if sim := res.Simulation; sim != nil {
		out.Simulation = &jsonSim{Headroom: report.NonNil(res.Headroom), Pools: sim.Pools, Notes: sim.Notes}
	}
	return report.WriteJSON(w, out)
}

// Text writes lint's finding lines, then the readiness per area and the
// headroom of each Windows workload.
func Text(w io.Writer, res *audit.Result, tool string, opts report.Options) error {
	if err := report.Text(w, lintReport(res, tool), opts); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\ncluster: %d nodes, %d pods, API server %s (modelled as Kubernetes %s)\n", res.Nodes, res.Pods, report.Clean(res.Server), res.Model.V)
	fmt.Fprintln(bw, "readiness:")
	for _, a := range res.Areas {
		fmt.Fprintf(bw, "  %-10s %-9s %d errors, %d warnings", a.Name, a.Status, a.Errors, a.Warnings)
		if len(a.Unread) > 0 {
			fmt.Fprintf(bw, " (could not list %s)", strings.Join(a.Unread, ", "))
		}
		fmt.Fprintln(bw)
	}
	if len(res.Headroom) > 0 {
		fmt.Fprintln(bw, "headroom (more replicas that fit):")
		for _, h := range res.Headroom {
			fmt.Fprintf(bw, "  %s: %d\n", report.Clean(h.Workload), h.MoreFit)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(bw, "note: %s\n", report.Clean(n))
	}
	return bw.Flush()
}
