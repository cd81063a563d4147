package simulate

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// TextOptions tunes WriteText.
type TextOptions struct {
	Color bool // ANSI colour for outcomes
}

const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiGreen  = "\x1b[32m"
	ansiDim    = "\x1b[2m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// WriteText writes the report for people: per workload what was placed
// where and what went wrong, word for word as Kubernetes says it; per pool
// what is requested of what is allocatable; and the notes.
func WriteText(w io.Writer, r *Result, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !opts.Color {
			return s
		}
		return code + s + ansiReset
	}
	c := r.Count()
	fmt.Fprintf(bw, "%s\n\n", paint(ansiBold, fmt.Sprintf("Simulated %s of %s on %s (Kubernetes %s)",
		plural2(c.Pods, "pod"), plural2(len(r.Workloads), "workload"), plural2(c.Nodes, "node"), r.Version)))
	byWorkload := map[string][]PodResult{}
	for _, p := range r.Pods {
		byWorkload[p.Workload] = append(byWorkload[p.Workload], p)
	}
	for _, wr := range r.Workloads {
		writeWorkload(bw, wr, byWorkload[wr.Workload], paint)
	}
	writePools(bw, r.Pools, paint)
	if len(r.Notes) > 0 {
		fmt.Fprintf(bw, "\n%s\n", paint(ansiBold, "Notes"))
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "  - %s\n", n)
		}
	}
	status := paint(ansiGreen, "every pod is scheduled and starts")
	if r.Failed() {
		status = paint(ansiRed, fmt.Sprintf("%d rejected, %d pending, %d failing at start", c.Rejected, c.Pending, c.StartFailures))
	}
	fmt.Fprintf(bw, "\n%d scheduled: %s\n", c.Scheduled, status)
	return bw.Flush()
}

type painter func(code, s string) string

func writeWorkload(w io.Writer, wr WorkloadResult, pods []PodResult, paint painter) {
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
	code := ansiGreen
	if wr.Rejected+wr.Pending+wr.StartFailures > 0 {
		code = ansiRed
	}
	fmt.Fprintf(w, "%s\n", paint(code, line))
	if wr.Replicas == 0 {
		for _, e := range wr.Explanation {
			fmt.Fprintf(w, "      %s\n", paint(ansiDim, e))
		}
	}
	for _, g := range groupOutcomes(pods) {
		fmt.Fprintf(w, "  %s %s\n", paint(ansiYellow, fmt.Sprintf("%d %s:", g.count, g.what)), g.message)
		for _, e := range g.explanation {
			fmt.Fprintf(w, "      %s\n", paint(ansiDim, e))
		}
	}
	for _, nm := range wr.NotModelled {
		fmt.Fprintf(w, "  %s %s\n", paint(ansiDim, "not modelled:"), nm)
	}
	if wr.MoreFit != nil {
		fmt.Fprintf(w, "  %d more %s would fit\n", *wr.MoreFit, plural(*wr.MoreFit, "replica"))
	}
}

// outcome is a group of a workload's pods that failed the same way.
type outcome struct {
	what, message string
	explanation   []string
	count         int
}

func groupOutcomes(pods []PodResult) []outcome {
	var out []*outcome
	index := map[string]*outcome{}
	add := func(what, msg string, expl []string) {
		key := what + "\x00" + msg
		if o := index[key]; o != nil {
			o.count++
			return
		}
		o := &outcome{what: what, message: msg, explanation: expl, count: 1}
		index[key] = o
		out = append(out, o)
	}
	for _, p := range pods {
		switch {
		case p.Rejected:
			add("rejected", p.RejectMessage, nil)
		case p.Pending:
			msg := p.Message
			if msg == "" {
				msg = "(no scheduler event)"
			}
			add("pending", msg, p.Explanation)
		case p.StartFailure != "":
			add("failing at start", p.StartFailure, nil)
		}
	}
	res := make([]outcome, len(out))
	for i, o := range out {
		res[i] = *o
	}
	return res
}

func writePools(w io.Writer, pools []PoolUsage, paint painter) {
	if len(pools) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", paint(ansiBold, "Pools (requested / allocatable)"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  POOL\tOS\tNODES\tCPU\tMEMORY\tPODS")
	for _, p := range pools {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s / %s\t%s / %s\t%d / %d\n", p.Pool, p.OS, p.Nodes,
			formatCPU(p.Requested.MilliCPU), formatCPU(p.Allocatable.MilliCPU),
			formatMemory(p.Requested.Memory), formatMemory(p.Allocatable.Memory),
			p.Requested.Pods, p.Allocatable.Pods)
	}
	tw.Flush()
}

func plural2(n int, word string) string { return fmt.Sprintf("%d %s", n, plural(n, word)) }
