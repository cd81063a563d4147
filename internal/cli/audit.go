package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/report/auditreport"
)

type auditOptions struct {
	scope
	liveFlags
	output
	failGate
	noSim   bool
	streams Streams
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
  winkube audit --context prod -o json > audit.json
  winkube audit -n shop --output-file sarif=audit.sarif
  winkube audit --output-file html=audit.html --output-file json=audit.json
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
	o.output.addFlags(f, "report", auditreport.Formats...)
	o.failGate.addFlag(f)
	o.scope.addFlags(f)
	o.liveFlags.addFlags(f)
	f.BoolVar(&o.noSim, "no-simulation", false, "skip the simulation on the live nodes")
	return cmd
}

func (o *auditOptions) validate() error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if err := o.failGate.validate(); err != nil {
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
	limitMemory(auditMemoryLimit)
	o.opts.Progress = progress(o.streams, o.quiet)
	snap, err := fetch.Read(cmd.Context(), o.opts)
	endProgress(o.streams, o.opts.Progress)
	if err != nil {
		return err
	}
	opts := audit.Options{Rules: o.enabled, Settings: o.cfg.Settings(), NoSimulation: o.noSim, Model: o.explicitModel()}
	res, err := audit.Run(cmd.Context(), snap, opts)
	if err != nil {
		return err
	}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		return auditreport.Write(w, format, res, Version, report.Options{Color: colour})
	})
	if err != nil {
		return err
	}
	return o.failGate.exit(res.Findings)
}
