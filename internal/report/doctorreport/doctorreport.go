package doctorreport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
)

// APIVersion and Kind identify the JSON doctor report; docs/audit.md
// describes it.
const (
	APIVersion = manifest.APIVersion
	Kind       = "DoctorReport"
)

// Formats lists doctor's output formats.
var Formats = []string{"text", "json"}

type jsonReport struct {
	report.Header
	Tool      string             `json:"tool,omitempty"`
	Server    string             `json:"serverVersion"`
	Summary   jsonSummary        `json:"summary"`
	Diagnoses []doctor.Diagnosis `json:"diagnoses"`
}

type jsonSummary struct {
	Checked   int `json:"checked"`
	Unhealthy int `json:"unhealthy"`
	// Nodes and KubeletPath are set when the kubelets were read.
	Nodes       int    `json:"nodesWithCauses,omitempty"`
	KubeletPath string `json:"kubeletPath,omitempty"`
}

// JSON writes the versioned report.
func JSON(w io.Writer, r *doctor.Report, tool string) error {
	out := jsonReport{Header: report.Header{APIVersion: APIVersion, Kind: Kind}, Tool: tool, Server: r.Server, Summary: jsonSummary{Checked: r.Checked, Unhealthy: r.Unhealthy, Nodes: r.Nodes}, Diagnoses: report.NonNil(r.Diagnoses)}
	if r.Kubelets != nil {
		out.Summary.KubeletPath = r.Kubelets.Path
	}
	return report.WriteJSON(w, out)
}

// Text writes one block per diagnosis.
func Text(w io.Writer, r *doctor.Report) error {
	bw := bufio.NewWriter(w)
	for i, d := range r.Diagnoses {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		where := ""
		if d.Node != "" {
			where = " on " + d.Node
			if d.NodeBuild != "" {
				where += " (Windows " + d.NodeBuild + ")"
			}
		}
		if d.Pod.Name == "" {
			fmt.Fprintf(bw, "node %s [%s]\n", report.Clean(strings.TrimPrefix(where, " on ")), report.Clean(d.Cause))
		} else {
			fmt.Fprintf(bw, "pod %s/%s%s [%s] (%s)\n", report.Clean(d.Pod.Namespace), report.Clean(d.Pod.Name), report.Clean(where), report.Clean(d.Cause), report.Clean(d.Owner))
		}
		fmt.Fprintf(bw, "  %s\n", report.Clean(d.Summary))
		fmt.Fprintln(bw, "  evidence:")
		for _, e := range d.Evidence {
			fmt.Fprintf(bw, "    - %s\n", report.Clean(evidenceLine(e)))
		}
		fmt.Fprintf(bw, "  why: %s\n", report.Clean(d.Explanation))
		fmt.Fprintln(bw, "  steps:")
		for j, s := range d.Steps {
			fmt.Fprintf(bw, "    %d. %s\n", j+1, report.Clean(s))
		}
		fmt.Fprintln(bw, "  next:")
		for _, c := range d.Commands {
			prefix := ""
			if c.Where != "" {
				prefix = "(" + c.Shell + ", " + c.Where + ") "
			}
			fmt.Fprintf(bw, "    %s%s\n", report.Clean(prefix), report.Clean(c.Line))
		}
	}
	if k := r.Kubelets; k != nil {
		fmt.Fprintf(bw, "read the kubelets of %d node(s) %s; %d node(s) with a cause in their logs\n", k.Nodes, pathWords(k.Path), r.Nodes)
	}
	fmt.Fprintf(bw, "%d pods checked, %d unhealthy, %d diagnoses\n", r.Checked, r.Unhealthy, len(r.Diagnoses))
	return bw.Flush()
}

func evidenceLine(e doctor.Evidence) string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Reason != "" {
		b.WriteString(" " + e.Reason)
	}
	if e.Container != "" {
		b.WriteString(" (container " + e.Container + ")")
	}
	if e.Count > 1 {
		fmt.Fprintf(&b, " x%d", e.Count)
	}
	if e.Time != nil && !e.Time.IsZero() {
		b.WriteString(" at " + e.Time.UTC().Format("2006-01-02T15:04:05Z"))
	}
	b.WriteString(": " + e.Message)
	return b.String()
}

func pathWords(path string) string {
	if path == "proxy" {
		return "through the API server's node proxy"
	}
	return "directly"
}

// jsonCause is a cause as `winkube doctor --causes -o json` prints it.
type jsonCause struct {
	ID       string           `json:"id"`
	Title    string           `json:"title"`
	Explain  string           `json:"explanation"`
	Steps    []string         `json:"steps"`
	Commands []doctor.Command `json:"commands"`
	Patterns []string         `json:"messages"`
	Sources  []string         `json:"sources"`
}

// CausesJSON writes the causes with their runbooks, in the order tried.
func CausesJSON(w io.Writer, cs []*doctor.Cause) error {
	out := make([]jsonCause, len(cs))
	for i, c := range cs {
		out[i] = jsonCause{ID: c.ID, Title: c.Title, Explain: c.Explain, Steps: c.Steps, Commands: c.Commands, Patterns: []string{}, Sources: c.Sources}
		for _, p := range c.Patterns {
			out[i].Patterns = append(out[i].Patterns, p.Text)
		}
	}
	return report.WriteJSON(w, out)
}

// CausesText writes one line per cause, in the order tried.
func CausesText(w io.Writer, cs []*doctor.Cause) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CAUSE\tTITLE")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%s\n", report.Clean(c.ID), report.Clean(c.Title))
	}
	fmt.Fprintf(tw, "\nwinkube rules explain --family doctor CAUSE prints a cause's runbook.\n")
	return tw.Flush()
}
