package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/report/auditreport"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/version"
	"github.com/winkube/winkube/internal/winsupport"
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

With --node-reads=direct (in the cluster, e.g. the audit CronJob) or
--node-reads=proxy (from a workstation, through the API server) it also reads
each Windows node's kubelet: its live configuration (/configz), checked with
the rules and IDs of nodeconfig validate and compared within the node's pool,
its memory and disk (/stats/summary), and the last hour of its kubelet,
containerd, kube-proxy and CNI services' logs (/logs/, the node log query),
matched on the log lines of doctor's node causes (the node-log-* rules). Direct
reads need get on nodes/configz, nodes/stats and nodes/log; proxy reads need
nodes/proxy, which is close to node admin (deploy/audit-node-proxy-rbac.yaml,
opt-in). An endpoint that cannot
be read becomes a kubelet-unreadable finding naming the permission or setting.

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 for a usage error or a tool failure. The output format never changes it.`,
		Example: `  winkube audit
  winkube audit --context prod -o json > audit.json
  winkube audit -n shop --output-file sarif=audit.sarif
  winkube audit --output-file html=audit.html --output-file json=audit.json
  winkube audit --node-reads=proxy -o json | jq '.findings[] | select(.rule == "windows-node-config-drift")'
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
	if err := validateReportFlags(&o.output, &o.failGate); err != nil {
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
	if k := o.kubeletOptions(); k != nil {
		k.Configz, k.Stats = true, true
		if audit.ReadsLogs(o.cfg.Settings()) {
			// Only the lines a node-log rule can match are kept.
			k.Services, k.KeepLine = fetch.DefaultServices, audit.KeepLogLine
		}
		o.opts.Kubelets = k
	}
	snap, err := readSnapshot(cmd.Context(), o.streams, o.quiet, o.opts)
	if err != nil {
		return err
	}
	noteKubelets(o.streams, o.quiet, snap)
	opts := audit.Options{Rules: o.enabled, Settings: o.cfg.Settings(), NoSimulation: o.noSim, Model: o.explicitModel(), NodeConfig: liveNodeConfig(o.explicitModel())}
	res, err := audit.Run(cmd.Context(), snap, opts)
	if err != nil {
		return err
	}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		return auditreport.Write(w, format, res, version.Get().Version, report.Options{Color: colour})
	})
	if err != nil {
		return err
	}
	if len(res.Unread) > 0 {
		// The report is written; the run still failed to read what it
		// reports on, which the exit status must say.
		return fmt.Errorf("could not list %s: areas that read them are unknown, not ready (see the permission-denied findings)", strings.Join(res.Unread, ", "))
	}
	return o.failGate.exit(res.Findings)
}

// liveNodeConfig checks live kubelet configurations with nodeconfig's
// rules; audit does not import nodeconfig itself.
func liveNodeConfig(m *winsupport.Model) *audit.NodeConfigCheck {
	model := winsupport.Default()
	if m != nil {
		model = *m
	}
	return &audit.NodeConfigCheck{Rules: nodeconfig.Rules(), Check: func(name string, data []byte, build int) ([]rule.Finding, error) {
		return nodeconfig.CheckConfigz(name, data, build, model)
	}}
}
