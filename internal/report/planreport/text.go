package planreport

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/simulate"
)

// TextOptions configure the text form.
type TextOptions struct {
	Color bool
	// All lists unchanged workloads too.
	All bool
}

// WriteText writes the plan for a terminal: the changes, each workload
// whose state changes with its causes, the pools before and after, the
// node configuration and the migration steps.
func WriteText(w io.Writer, r *plan.Report, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	paint := func(c report.Colour, s string) string { return report.Paint(opts.Color, c, s) }
	fmt.Fprintf(bw, "%s\n", paint(report.Bold, fmt.Sprintf("Plan: Kubernetes %s -> %s", r.KubernetesBefore, r.KubernetesAfter)))
	for _, c := range r.Changes {
		fmt.Fprintf(bw, "  %s %s: %s\n", c.Kind, c.Target, c.Detail)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(bw, "  %s %s\n", paint(report.Yellow, "warning:"), wn)
	}
	fmt.Fprintf(bw, "\n%s\n", paint(report.Bold, "Workloads"))
	shown := 0
	for _, wl := range r.Workloads {
		if wl.Verdict == plan.Unchanged && !opts.All {
			continue
		}
		shown++
		fmt.Fprintf(bw, "  %s %s\n", verdictText(wl.Verdict, paint), wl.Workload)
		fmt.Fprintf(bw, "      before: %s\n      after:  %s\n", stateText(wl.Before), stateText(wl.After))
		for _, c := range wl.Causes {
			fmt.Fprintf(bw, "      [%s] %s\n", c.ID, c.Message)
			if c.Hint != "" {
				fmt.Fprintf(bw, "          %s\n", c.Hint)
			}
		}
	}
	if shown == 0 {
		fmt.Fprintf(bw, "  no workload changes\n")
	}
	fmt.Fprintf(bw, "\n%s\n", paint(report.Bold, "Pools"))
	for _, p := range r.Pools {
		fmt.Fprintf(bw, "  %-20s %s nodes %d -> %d, pods %d -> %d%s\n", p.Pool, p.OS, p.NodesBefore, p.NodesAfter, p.PodsBefore, p.PodsAfter, buildText(p))
	}
	if len(r.Nodes) > 0 || len(r.NodeIssues) > 0 {
		fmt.Fprintf(bw, "\n%s\n", paint(report.Bold, "Nodes"))
		for _, n := range r.Nodes {
			if n.Error != "" {
				fmt.Fprintf(bw, "  %s: cannot generate: %s\n", n.Pool, n.Error)
				continue
			}
			fmt.Fprintf(bw, "  %s: Kubernetes %s, %s, containerd %s, %s: %d files (winkube nodeconfig generate)\n", n.Pool,
				n.WindowsNode.KubernetesVersion, n.WindowsNode.WindowsBuild, n.WindowsNode.ContainerdVersion, n.WindowsNode.CNI, len(n.Files))
			for _, f := range n.Files {
				fmt.Fprintf(bw, "      C:\\%s\n", strings.ReplaceAll(f.Path, "/", `\`))
			}
		}
		for _, i := range r.NodeIssues {
			fmt.Fprintf(bw, "  %s:%d: %s: %s [%s]\n", i.File, i.Line, i.Severity, i.Message, i.Rule)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", paint(report.Bold, "Steps"))
	for _, s := range r.Steps {
		fmt.Fprintf(bw, "  %d. %s\n", s.Number, s.Title)
		for _, d := range s.Details {
			fmt.Fprintf(bw, "       %s\n", d)
		}
		for _, e := range s.Evictions {
			b := ""
			if e.Budget != "" {
				b = fmt.Sprintf(" (budget %s allows %d)", e.Budget, e.Allowed)
			}
			fmt.Fprintf(bw, "       evict %s/%s on %s%s\n", e.Namespace, e.Pod, e.Node, b)
		}
		for _, c := range s.Commands {
			fmt.Fprintf(bw, "       $ %s\n", c)
		}
		for _, b := range s.Blocked {
			fmt.Fprintf(bw, "       %s %s\n", paint(report.Red, "blocked:"), b)
		}
		if s.Check != "" {
			fmt.Fprintf(bw, "       check: %s\n", s.Check)
		}
	}
	sm := r.Summary
	status := paint(report.Green, "no workload loses ready replicas")
	if r.Broken() {
		status = paint(report.Red, fmt.Sprintf("%d break, %d lose replicas: %d ready replicas lost", sm.Breaks, sm.Degraded, sm.ReplicasLost))
	}
	fmt.Fprintf(bw, "\n%d workloads: %d unchanged, %d move, %d fixed, %d at risk: %s\n", sm.Workloads, sm.Unchanged, sm.Moves, sm.Fixed, sm.AtRisk, status)
	return bw.Flush()
}

func verdictText(v string, paint func(report.Colour, string) string) string {
	switch v {
	case plan.Breaks, plan.Degraded:
		return paint(report.Red, strings.ToUpper(v))
	case plan.AtRisk:
		return paint(report.Yellow, strings.ToUpper(v))
	case plan.Fixed:
		return paint(report.Green, strings.ToUpper(v))
	}
	return strings.ToUpper(v)
}

// stateText is "scheduled 3/3 ready (linux 3)".
func stateText(s plan.State) string {
	t := fmt.Sprintf("%s %d/%d ready", s.Status, s.Ready, s.Replicas)
	if len(s.Pools) > 0 {
		t += " (" + poolsText(s.Pools) + ")"
	}
	return t
}

func poolsText(ps []simulate.PoolCount) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s %d", p.Pool, p.Count))
	}
	return strings.Join(parts, ", ")
}

func buildText(p plan.PoolDiff) string {
	if p.BuildBefore == p.BuildAfter {
		if p.BuildBefore == "" {
			return ""
		}
		return ", build " + p.BuildBefore
	}
	return fmt.Sprintf(", build %s -> %s", orDash(p.BuildBefore), orDash(p.BuildAfter))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
