package simreport

import (
	"bufio"
	"fmt"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/simulate"
	"io"
	"strings"
	"text/tabwriter"
)

// TextOptions tunes WriteText.
type TextOptions struct {
	Color bool // ANSI colour for outcomes
}

// WriteText writes the report for people: per workload what was placed
// where and what went wrong, word for word as Kubernetes says it; per pool
// what is requested of what is allocatable; and the notes.
func WriteText(w io.Writer, r *simulate.Result, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	paint := func(c report.Colour, s string) string { return report.Paint(opts.Color, c, s) }
	c := r.Count()
	fmt.Fprintf(bw, "%s\n\n", paint(report.Bold, fmt.Sprintf("Simulated %s of %s on %s (Kubernetes %s)",
		plural2(c.Pods, "pod"), plural2(len(r.Workloads), "workload"), plural2(c.Nodes, "node"), r.Version)))
	byWorkload := map[string][]simulate.PodResult{}
	for _, p := range r.Pods {
		byWorkload[p.Workload] = append(byWorkload[p.Workload], p)
	}
	for _, wr := range r.Workloads {
		writeWorkload(bw, wr, byWorkload[wr.Workload], paint)
	}
	writePools(bw, r.Pools, paint)
	writeDependencies(bw, r.Dependencies, paint)
	if len(r.Notes) > 0 {
		fmt.Fprintf(bw, "\n%s\n", paint(report.Bold, "Notes"))
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "  - %s\n", report.Clean(n))
		}
	}
	status := paint(report.Green, "every pod is scheduled and starts")
	if r.Failed() {
		status = paint(report.Red, fmt.Sprintf("%d rejected, %d pending, %d failing at start", c.Rejected, c.Pending, c.StartFailures))
	}
	fmt.Fprintf(bw, "\n%d scheduled: %s\n", c.Scheduled, status)
	return bw.Flush()
}

type painter func(c report.Colour, s string) string

func writeWorkload(w io.Writer, wr simulate.WorkloadResult, pods []simulate.PodResult, paint painter) {
	scheduled := 0
	var where []string
	for _, pc := range wr.Placed {
		scheduled += pc.Count
		where = append(where, fmt.Sprintf("%s %d", pc.Pool, pc.Count))
	}
	line := fmt.Sprintf("%s: %d/%d scheduled", wr.Workload, scheduled, wr.Replicas)
	if len(where) > 0 {
		line += " (" + strings.Join(where, ", ") + ")"
	}
	code := report.Green
	if wr.Rejected+wr.Pending+wr.StartFailures > 0 {
		code = report.Red
	}
	// Names come from the cluster file, which may be kubectl get nodes
	// output: cleaned before they reach a terminal.
	fmt.Fprintf(w, "%s\n", paint(code, report.Clean(line)))
	if nodes := perNode(wr.Nodes); nodes != "" && !strings.HasPrefix(wr.Workload, "DaemonSet/") {
		fmt.Fprintf(w, "  %s %s\n", paint(report.Dim, "per node:"), report.Clean(nodes))
	}
	if wr.Replicas == 0 {
		for _, e := range wr.Explanation {
			fmt.Fprintf(w, "      %s\n", paint(report.Dim, report.Clean(e)))
		}
	}
	for _, g := range groupOutcomes(pods) {
		fmt.Fprintf(w, "  %s %s\n", paint(report.Yellow, fmt.Sprintf("%d %s:", g.count, g.what)), report.Clean(g.message))
		for _, e := range g.explanation {
			fmt.Fprintf(w, "      %s\n", paint(report.Dim, report.Clean(e)))
		}
	}
	for _, nm := range wr.NotModelled {
		fmt.Fprintf(w, "  %s %s\n", paint(report.Dim, "not modelled:"), report.Clean(nm))
	}
	if n := wr.MoreFit; n != nil {
		replicas := "replicas"
		if *n == 1 {
			replicas = "replica"
		}
		fmt.Fprintf(w, "  %d more %s would fit\n", *n, replicas)
	}
}

// maxNodesShown bounds the per-node line: beyond it, pools say enough.
const maxNodesShown = 12

// perNode renders a workload's pods per node, with the range over the
// seeded runs where ties made it vary ("win-1 5 (4-7)"); "" when it spans
// one node or too many to list.
func perNode(nodes []simulate.NodeCount) string {
	if len(nodes) < 2 || len(nodes) > maxNodesShown {
		return ""
	}
	parts := make([]string, len(nodes))
	for i, nc := range nodes {
		parts[i] = fmt.Sprintf("%s %d", nc.Node, nc.Count)
		if nc.Min != nc.Max {
			parts[i] += fmt.Sprintf(" (%d-%d)", nc.Min, nc.Max)
		}
	}
	return strings.Join(parts, ", ")
}

// outcome is a group of a workload's pods that failed the same way.
type outcome struct {
	what, message string
	explanation   []string
	count         int
}

func groupOutcomes(pods []simulate.PodResult) []outcome {
	var out []*outcome
	index := map[string]*outcome{}
	add := func(what, msg string, expl []string, n int) {
		key := what + "\x00" + msg
		if o := index[key]; o != nil {
			o.count += n
			return
		}
		o := &outcome{what: what, message: msg, explanation: expl, count: n}
		index[key] = o
		out = append(out, o)
	}
	for _, p := range pods {
		switch {
		case p.Rejected:
			add("rejected", p.RejectMessage, nil, p.Pods())
		case p.Pending:
			msg := p.Message
			if msg == "" {
				msg = "(no scheduler event)"
			}
			add("pending", msg, p.Explanation, p.Pods())
		case p.StartFailure != "":
			add("failing at start", p.StartFailure, nil, p.Pods())
		}
	}
	res := make([]outcome, len(out))
	for i, o := range out {
		res[i] = *o
	}
	return res
}

func writePools(w io.Writer, pools []simulate.PoolUsage, paint painter) {
	if len(pools) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", paint(report.Bold, "Pools (requested / allocatable)"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  POOL\tOS\tNODES\tCPU\tMEMORY\tPODS")
	for _, p := range pools {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s / %s\t%s / %s\t%d / %d\n", report.Clean(p.Pool), report.Clean(p.OS), p.Nodes,
			simulate.FormatCPU(p.Requested.MilliCPU), simulate.FormatCPU(p.Allocatable.MilliCPU),
			simulate.FormatMemory(p.Requested.Memory), simulate.FormatMemory(p.Allocatable.Memory),
			p.Requested.Pods, p.Allocatable.Pods)
	}
	tw.Flush()
}

// plural2 is "1 pod", "2 pods".
func plural2(n int, word string) string {
	if n != 1 {
		word += "s"
	}
	return fmt.Sprintf("%d %s", n, word)
}

// writeDependencies lists, per workload on Windows nodes, the Services it
// names and whether its pods reach them.
func writeDependencies(w io.Writer, deps []simulate.Dependency, paint painter) {
	if len(deps) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", paint(report.Bold, "Service dependencies of Windows workloads"))
	last := ""
	for _, d := range deps {
		if d.Workload != last {
			fmt.Fprintf(w, "  %s (pool %s)\n", d.Workload, d.Pool)
			last = d.Workload
		}
		status, class := depStatus(d)
		colour := report.Green
		if class == "bad" {
			colour = report.Red
		}
		line := fmt.Sprintf("    %s -> %s (%s): %s", d.Name, d.Service, d.Where, paint(colour, status))
		if d.Note != "" {
			line += " (" + d.Note + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// depStatus is a dependency's outcome in words, and its class: ok or bad.
func depStatus(d simulate.Dependency) (string, string) {
	switch {
	case !d.Resolves:
		return "does not resolve: " + d.Blocked, "bad"
	case d.Blocked != "":
		return "blocked: " + d.Blocked, "bad"
	}
	return "resolves", "ok"
}
