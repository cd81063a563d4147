package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/nodeconfig/generate"
	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/report/planreport"
	"github.com/winkube/winkube/internal/rule"
)

type planOptions struct {
	scope
	output
	failGate
	registryFlags
	streams Streams
	live    liveFlags
	// k8sVersionCurrent is --current-kubernetes-version: the current
	// release, when neither the cluster file nor the server says.
	k8sVersionCurrent string

	setPool, addPool, removePool, taint, runtimeClass []string
	targetVersion, containerd, currentContainerd      string
	to, nodeConfig, nodeTemplate                      string

	changes   []plan.Change
	target    *cluster.Cluster
	nodeFiles []*nodeconfig.File
	template  *generate.Node
}

func newPlanCommand(s Streams) *cobra.Command {
	o := &planOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "plan [flags] PATH... | -",
		Short: "Say what a cluster change does to every workload before it is made, and how to make it blue/green",
		Long: `Plan a change to the cluster: a pool's Windows build (--set-pool), a new or
removed pool, a taint, a Kubernetes or containerd upgrade, a RuntimeClass, or a
whole target cluster file (--to). The workloads are simulated on the current
and on the target cluster, exactly as 'winkube simulate' does, and linted
against both: each workload's before and after (scheduled, pending, refused or
failing at start, per pool) comes with its causes, each a rule ID or the
runtime's own reason and message.

The plan also gives the node configuration the changed Windows pools need
('winkube nodeconfig generate'), what 'nodeconfig validate' says of the
current node files (--node-config) against the target, and the blue/green
migration as ordered steps with kubectl commands: create the new pool, rebuild
or retag images, move the build pins, cordon the old pool and drain it in waves
that never evict a pod its PodDisruptionBudget protects.

Exit status: 0 when no workload loses ready replicas; 1 when one does, when
the drain is blocked by a PodDisruptionBudget, or when a rule finding new on
the target or a node file's finding is at or above --fail-on (default error;
none never fails); 2 for a usage error or a tool failure. The output format
never changes it.`,
		Example: `  winkube plan --cluster cluster.yaml --set-pool win2022:build=10.0.26100 manifests/
  winkube plan --cluster cluster.yaml --kubernetes-version 1.34 -o json manifests/ | jq '.workloads[] | select(.verdict != "unchanged")'
  winkube plan --cluster nodes.yaml --to target-cluster.yaml --output-file html=plan.html manifests/
  winkube plan --cluster cluster.yaml --containerd 2.1 --node-config node/ manifests/
  winkube plan --context prod -A --set-pool win2022:build=10.0.26100`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !o.isLive(cmd) {
				return usagef("plan needs at least one path of workloads, or - to read stdin, or --kubeconfig/--context to read them from the cluster")
			}
			return nil
		},
		RunE: validateThenRun(o),
	}
	f := cmd.Flags()
	o.output.addFlags(f, "plan", "text", "json", "html")
	o.failGate.addFlag(f)
	f.StringVar(&o.configPath, "config", "", "config file (default ./.winkube.yaml when present)")
	f.StringVar(&o.clusterPath, "cluster", "", "the current cluster: a built-in profile, a winkube Cluster file, or kubectl get nodes -o yaml (default: the config's cluster, else the reference cluster, assumed)")
	f.StringArrayVar(&o.setPool, "set-pool", nil, "change a pool: NAME:FIELD=VALUE[,FIELD=VALUE], FIELD build, count, cpu, memory, maxPods, sandboxImage or label.KEY (repeatable)")
	f.StringArrayVar(&o.addPool, "add-pool", nil, "add the pools of a winkube Cluster FILE (repeatable)")
	f.StringArrayVar(&o.removePool, "remove-pool", nil, "remove the pool NAME (repeatable)")
	f.StringArrayVar(&o.taint, "taint", nil, "taint a pool: NAME:KEY=VALUE:EFFECT (repeatable)")
	f.StringVar(&o.targetVersion, "kubernetes-version", "", "upgrade Kubernetes to this minor release, e.g. 1.35")
	f.StringVar(&o.containerd, "containerd", "", "move the Windows nodes to this containerd release, e.g. 2.1")
	f.StringVar(&o.currentContainerd, "current-containerd", "", "the Windows nodes' containerd release now, e.g. 1.7.27")
	f.StringArrayVar(&o.runtimeClass, "runtime-class", nil, "add or replace a RuntimeClass: NAME:handler=HANDLER[,nodeSelector=KEY=VALUE][,toleration=KEY=VALUE:EFFECT] (repeatable)")
	f.StringVar(&o.to, "to", "", "the target cluster FILE (a winkube Cluster or Node objects) instead of pool flags")
	f.StringVar(&o.nodeConfig, "node-config", "", "folder of a current Windows node's configuration files, validated against the target")
	f.StringVar(&o.nodeTemplate, "node-template", "", "WindowsNode file whose CNI and CIDRs the generated node configuration uses (default flannel-l2bridge, 10.244.0.0/16, 10.96.0.0/12)")
	f.StringVar(&o.k8sVersionCurrent, "current-kubernetes-version", "", "the current Kubernetes release (default: the config's, the cluster file's or the API server's)")
	o.addRegistryFlags(f, true)
	f.StringVar(&o.live.opts.Kubeconfig, "kubeconfig", "", "read the current cluster (and, without PATH, its workloads and PodDisruptionBudgets) from this kubeconfig's cluster, read-only")
	f.StringVar(&o.live.opts.Context, "context", "", "kubeconfig context to read the current cluster from")
	f.StringVarP(&o.live.opts.Namespace, "namespace", "n", "", "with --kubeconfig/--context and no PATH: read only this namespace's workloads")
	f.BoolVarP(&o.live.opts.AllNamespaces, "all-namespaces", "A", false, "with --kubeconfig/--context and no PATH: read every namespace's workloads")
	o.live.opts.QPS, o.live.opts.Burst = fetch.DefaultQPS, fetch.DefaultBurst
	return cmd
}

// isLive says whether the current cluster is read from an API server.
func (o *planOptions) isLive(cmd *cobra.Command) bool {
	return cmd.Flags().Changed("kubeconfig") || cmd.Flags().Changed("context")
}

func (o *planOptions) validate() error {
	if err := validateReportFlags(&o.output, &o.failGate); err != nil {
		return err
	}
	var errs []error
	add := func(c plan.Change, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		o.changes = append(o.changes, c)
	}
	for _, a := range o.addPool {
		add(plan.AddPool(a))
	}
	for _, a := range o.setPool {
		add(plan.SetPool(a))
	}
	for _, a := range o.taint {
		add(plan.Taint(a))
	}
	for _, a := range o.removePool {
		add(plan.RemovePool(a))
	}
	if o.targetVersion != "" {
		add(plan.KubernetesVersion(o.targetVersion))
	}
	if o.containerd != "" {
		add(plan.Containerd(o.containerd))
	}
	if o.currentContainerd != "" {
		if _, err := plan.Containerd(o.currentContainerd); err != nil {
			errs = append(errs, fmt.Errorf("--current-containerd %q: want a containerd release 1.x or 2.x, e.g. 1.7.27", o.currentContainerd))
		}
	}
	for _, a := range o.runtimeClass {
		add(plan.RuntimeClass(a))
	}
	if o.to != "" {
		if len(o.setPool)+len(o.addPool)+len(o.removePool)+len(o.taint) > 0 {
			errs = append(errs, errors.New("--to: give the target cluster file or pool changes (--set-pool, --add-pool, --remove-pool, --taint), not both"))
		} else if c, err := cluster.Load(o.to); err != nil {
			errs = append(errs, fmt.Errorf("--to: %w", err))
		} else {
			o.target = c
		}
	}
	if o.to == "" && len(o.changes) == 0 {
		errs = append(errs, errors.New("plan needs a change: --set-pool, --add-pool, --remove-pool, --taint, --kubernetes-version, --containerd, --runtime-class or --to FILE"))
	}
	if o.nodeTemplate != "" {
		n := generate.Node{}
		data, err := os.ReadFile(o.nodeTemplate)
		if err == nil {
			err = manifest.DecodeStrict(o.nodeTemplate, data, &n)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--node-template: %w", err))
		}
		o.template = &n
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}
	if o.live.opts.AllNamespaces && o.live.opts.Namespace != "" {
		return usagef("--namespace and --all-namespaces cannot be used together")
	}
	o.k8sVersion = o.k8sVersionCurrent
	if err := o.resolve(); err != nil {
		return err
	}
	return o.readNodeConfig()
}

// readNodeConfig reads --node-config's files as nodeconfig validate does.
func (o *planOptions) readNodeConfig() error {
	if o.nodeConfig == "" {
		return nil
	}
	st, err := os.Stat(o.nodeConfig)
	if err != nil || !st.IsDir() {
		return usagef("--node-config %s: want a folder of node configuration files", o.nodeConfig)
	}
	files, err := readNodeConfig([]string{o.nodeConfig}, func(err error) error {
		o.status(o.streams, "warning: --node-config: %v (left out)", err)
		return nil
	})
	o.nodeFiles = append(o.nodeFiles, files...)
	return err
}

// planGCPercent is plan's garbage-collector target: a plan simulates the
// estate up to five times and lints it twice, allocating about 1.6 GB
// for 2,000 workloads, most of it short-lived; at GOGC=400 instead of 100
// the collector's share fell from 8.7-9.0 to 6.7 CPU-seconds a plan
// (internal/plan BenchmarkPlanWS2022ToWS2025, docs/performance.md).
// planMemoryLimit bounds the heap that lets grow. GOGC and GOMEMLIMIT
// override them.
const (
	planGCPercent   = 400
	planMemoryLimit = 2 << 30
)

func (o *planOptions) run(cmd *cobra.Command, args []string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(planGCPercent)
	}
	limitMemory(planMemoryLimit)
	var objs []*manifest.Object
	sim := &simulateOptions{streams: o.streams}
	sim.output.quiet = o.quiet
	if o.isLive(cmd) {
		var err error
		if objs, err = o.readLive(cmd.Context(), o.clusterPath == "", len(args) == 0); err != nil {
			return err
		}
	}
	o.announce(o.streams.Err, o.quiet)
	o.warnCluster(&o.output, o.streams)
	if len(args) > 0 {
		var err error
		if objs, err = sim.load(args); err != nil {
			return err
		}
	}
	images, err := o.lookup(o.streams, o.quiet)
	if err != nil {
		return err
	}
	in := plan.Input{Current: o.cluster, Model: o.model, Changes: o.changes, Target: o.target, Objects: objs, Rules: o.enabled,
		Images: images, Containerd: o.currentContainerd, NodeTemplate: o.template}
	if o.nodeConfig != "" {
		in.ValidateNodes = func(t plan.NodeTarget) []rule.Finding {
			return nodeconfig.Validate(o.nodeFiles, nil, nodeconfig.Options{Root: o.nodeConfig, BuildNumber: t.BuildNumber, ContainerdMajor: t.ContainerdMajor, Model: t.Model})
		}
	}
	rep, err := plan.Run(cmd.Context(), in)
	o.doneImages()
	if err != nil {
		return usageError{err}
	}
	for _, w := range rep.Warnings {
		o.status(o.streams, "warning: %s", w)
	}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		switch format {
		case "json":
			return planreport.WriteJSON(w, rep)
		case "html":
			return planreport.WriteHTML(w, rep)
		}
		return planreport.WriteText(w, rep, planreport.TextOptions{Color: colour})
	})
	if err != nil {
		return err
	}
	if sim.inputProblems > 0 {
		return exitError{ExitFindings}
	}
	return o.failGate.exit(planFindings(rep))
}

// planFindings turns the plan's verdicts into findings for --fail-on: a
// workload that loses ready replicas and a blocked drain are errors, a
// new rule finding of the target keeps its severity, and so does a node
// file's.
func planFindings(rep *plan.Report) []rule.Finding {
	var out []rule.Finding
	for _, w := range rep.Workloads {
		switch w.Verdict {
		case plan.Breaks, plan.Degraded:
			out = append(out, rule.Finding{Rule: "plan-" + w.Verdict, Severity: rule.Error, Message: w.Workload})
		}
		for _, c := range w.Causes {
			if c.Kind == "rule" {
				if sev, err := rule.ParseSeverity(c.Severity); err == nil {
					out = append(out, rule.Finding{Rule: c.ID, Severity: sev, Message: c.Message})
				}
			}
		}
	}
	for _, s := range rep.Steps {
		if len(s.Blocked) > 0 {
			out = append(out, rule.Finding{Rule: "plan-drain-blocked", Severity: rule.Error, Message: s.Title})
		}
	}
	return append(out, rep.NodeFindings...)
}
