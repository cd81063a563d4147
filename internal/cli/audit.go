package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
)

type auditOptions struct {
	scope
	liveFlags
	formats   []string
	outputs   []string
	failOn    string
	color     string
	quiet     bool
	noSim     bool
	streams   Streams
	failLevel rule.Severity
	failNever bool
}

func newAuditCommand(s Streams) *cobra.Command {
	o := &auditOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "audit [flags]",
		Short: "Check a live cluster: Windows nodes, workloads, placement and capacity",
		Long: `Read a live cluster (every namespace unless -n is given) and report in one
place: node rules over the nodes' facts (taints, build labels, kubelet and
containerd versions, memory reserve, readiness), winkube's lint rules over the
live workloads (a pod is reported once, at the workload that owns it), and the
simulation on the live nodes with the running pods already placed: pending
workloads and why, and how many more replicas of each Windows workload fit.

Needs get/list/watch on what it reads and nothing else (deploy/audit-rbac.yaml);
Secrets are never read. A kind it may not list becomes a permission-denied
finding and the audit goes on.

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 for a usage error or a tool failure. The output format never changes it.`,
		Example: `  winkube audit
  winkube audit --context prod -o json --output audit.json
  winkube audit -n shop -o sarif --output audit.sarif
  winkube audit -o html --output audit.html
  kubectl winkube audit -A --fail-on warning`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.formats, "format", "o", []string{"text"}, "output format: text, json, sarif or html (repeatable)")
	f.StringArrayVar(&o.outputs, "output", nil, "file for the matching --format, - for stdout (repeatable; default stdout)")
	f.StringVar(&o.failOn, "fail-on", "error", "exit 1 when a finding is at or above this severity: error, warning, info or none")
	o.scope.addFlags(f)
	o.liveFlags.addFlags(f)
	f.StringVar(&o.color, "color", "auto", "colour output: auto, always or never (NO_COLOR is honoured)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no status on stderr")
	f.BoolVar(&o.noSim, "no-simulation", false, "skip the simulation on the live nodes")
	return cmd
}

func (o *auditOptions) validate() error {
	for _, f := range o.formats {
		if !contains(audit.Formats, f) {
			return usagef("--format %q: want one of %s", f, strings.Join(audit.Formats, ", "))
		}
	}
	if len(o.outputs) > len(o.formats) {
		return usagef("%d --output values for %d --format values; give one --format per --output", len(o.outputs), len(o.formats))
	}
	if o.failOn == "none" {
		o.failNever = true
	} else {
		lvl, err := rule.ParseSeverity(o.failOn)
		if err != nil {
			return usagef("--fail-on: %v", err)
		}
		o.failLevel = lvl
	}
	if err := checkColor(o.color); err != nil {
		return err
	}
	if err := o.liveFlags.validate(); err != nil {
		return err
	}
	// An audit is of the cluster: every namespace unless one is named.
	o.opts.AllNamespaces = o.opts.Namespace == ""
	// The audit judges objects; events are doctor's evidence.
	o.opts.NoEvents = true
	return o.resolve()
}

func (o *auditOptions) run(cmd *cobra.Command) error {
	limitMemory()
	o.opts.Progress = progress(o.streams, o.quiet)
	snap, err := fetch.Read(cmd.Context(), o.opts)
	endProgress(o.streams, o.opts.Progress)
	if err != nil {
		return err
	}
	opts := audit.Options{Rules: o.enabled, NoSimulation: o.noSim}
	if o.k8sVersion != "" || (o.cfg != nil && o.cfg.KubernetesVersion != "") {
		m := o.model
		opts.Model = &m
	}
	res, err := audit.Run(cmd.Context(), snap, opts)
	if err != nil {
		return err
	}
	for i, format := range o.formats {
		dest := "-"
		if i < len(o.outputs) {
			dest = o.outputs[i]
		}
		if err := o.write(format, dest, res); err != nil {
			return err
		}
	}
	if o.failNever {
		return nil
	}
	for _, f := range res.Findings {
		if !f.Suppressed && f.Severity >= o.failLevel {
			return exitError{ExitFindings}
		}
	}
	return nil
}

func (o *auditOptions) write(format, dest string, res *audit.Result) error {
	var w io.Writer = o.streams.Out
	color := o.color == "always" || (o.color == "auto" && o.streams.OutIsTerminal && os.Getenv("NO_COLOR") == "")
	if dest != "-" {
		f, err := os.Create(dest)
		if err != nil {
			return fmt.Errorf("writing %s output: %w", format, err)
		}
		defer f.Close()
		w, color = f, o.color == "always"
	}
	if err := audit.Write(w, format, res, Version, report.Options{Color: color}); err != nil {
		return fmt.Errorf("writing %s output: %w", format, err)
	}
	return nil
}
