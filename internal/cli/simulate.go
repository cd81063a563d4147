package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report/simreport"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
)

type simulateOptions struct {
	scope
	inputFlags
	output
	failGate
	registryFlags
	replicas []string
	max      []string
	streams  Streams

	seed            int64
	schedulerConfig string
	schedulerName   string
	fullScoring     bool
	tieRuns         int
	profile         *simulate.Profile
	// inputProblems counts documents left out of the simulation.
	inputProblems int
	// input are the documents that are not Kubernetes objects, as
	// load-error findings; --fail-on decides what they do to the exit code.
	input []rule.Finding

	overrides map[string]int32
}

func newSimulateCommand(s Streams) *cobra.Command {
	o := &simulateOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "simulate [flags] PATH... | -",
		Short: "Predict where the control plane puts each pod, and whether it fits and starts",
		Long: `Simulate what the API server, kube-scheduler and kubelets of a hybrid cluster do
with the pods your manifests create: admission (RuntimeClass, validation),
scheduling with kube-scheduler's filters and messages (FailedScheduling text
word for word for the Kubernetes version), and what the kubelet does after
binding (Windows image build against the node's, spec.os against the node).

The cluster is --cluster FILE (a winkube Cluster file, or kubectl get nodes
-o yaml), or the built-in reference cluster: three Linux nodes and two Windows
Server 2022 nodes tainted os=windows:NoSchedule.

-o sets the format on stdout; --output-file FORMAT=PATH writes more formats to
files in the same run (an HTML report beside the text).

Exit status: 0 when every pod is scheduled and starts, 1 when a pod is
rejected, stays pending or fails at start, 2 for a usage error or a tool
failure (an input or output file that cannot be read or written). The output
format never changes it.`,
		Example: `  winkube simulate examples/
  winkube simulate --cluster examples/cluster.yaml --replicas Deployment/web=10 manifests/
  kubectl get nodes -o yaml > nodes.yaml && winkube simulate --cluster nodes.yaml --max Deployment/iis app.yaml
  helm template ./chart | winkube simulate -o json - | jq '.pods[] | select(.pending)'
  winkube simulate --output-file html=report.html examples/`,
		Args: pathArgs("simulate"),
		RunE: validateThenRun(o),
	}
	f := cmd.Flags()
	o.output.addFlags(f, "report", "text", "json", "html")
	o.failGate.addFlag(f)
	o.scope.addFlags(f)
	o.addInputFlags(f)
	f.StringArrayVar(&o.replicas, "replicas", nil, "override a workload's replicas: Kind/name=N or Kind/namespace/name=N (repeatable)")
	f.StringArrayVar(&o.max, "max", nil, "also report how many more replicas of Kind/name (or Kind/namespace/name) fit (repeatable)")
	f.Int64Var(&o.seed, "seed", 0, "break ties between equally scored nodes at random with this seed, giving one concrete placement (default: the scheduler's own order, with the range over --tie-runs seeded runs)")
	f.StringVar(&o.schedulerConfig, "scheduler-config", "", "a KubeSchedulerConfiguration file (kube-scheduler --config) whose profile's weights, disabled plugins and scoring strategy to model")
	f.StringVar(&o.schedulerName, "scheduler-name", "default-scheduler", "the profile of --scheduler-config to model")
	f.BoolVar(&o.fullScoring, "full-scoring", false, "in clusters of 100 nodes or more, score with every plugin and kube-scheduler's node sampling (slower) instead of by resources, node affinity and taints")
	f.IntVar(&o.tieRuns, "tie-runs", 20, "when ties decided placements, how many seeded runs give each node's range (0: none)")
	o.addRegistryFlags(f, true)
	return cmd
}

func (o *simulateOptions) validate() error {
	if o.tieRuns < 0 {
		return usagef("--tie-runs %d: want 0 or more", o.tieRuns)
	}
	if o.schedulerConfig != "" {
		data, err := manifest.ReadFile(o.schedulerConfig, manifest.MaxConfigSize)
		if err != nil {
			return usagef("--scheduler-config: %v", err)
		}
		if o.profile, err = simulate.ParseSchedulerConfig(data, o.schedulerName); err != nil {
			return usagef("--scheduler-config %s: %v", o.schedulerConfig, err)
		}
	}
	if err := validateReportFlags(&o.output, &o.failGate); err != nil {
		return err
	}
	o.overrides = map[string]int32{}
	for _, r := range o.replicas {
		ref, n, ok := strings.Cut(r, "=")
		v, err := strconv.ParseInt(n, 10, 32)
		if !ok || err != nil || v < 0 || strings.Count(ref, "/") < 1 || strings.Count(ref, "/") > 2 {
			return usagef("--replicas %q: want Kind/name=N or Kind/namespace/name=N with N a whole number", r)
		}
		o.overrides[ref] = int32(v)
	}
	for _, m := range o.max {
		if c := strings.Count(m, "/"); c < 1 || c > 2 {
			return usagef("--max %q: want Kind/name or Kind/namespace/name", m)
		}
	}
	return o.resolve()
}

func (o *simulateOptions) run(cmd *cobra.Command, args []string) error {
	o.announce(o.streams.Err, o.quiet)
	o.warnCluster(&o.output, o.streams)
	objs, err := o.load(args)
	if err != nil {
		return err
	}
	warnInput(o.streams.Err, o.quiet, o.input)
	images, err := o.lookup(o.streams, o.quiet)
	if err != nil {
		return err
	}
	nodes, pools := o.cluster.Nodes()
	in := simulate.Input{Nodes: nodes, Pools: pools, Objects: objs, Model: o.model, Replicas: o.overrides, Max: o.max, Images: images,
		Profile: o.profile, FullScoring: o.fullScoring, TieRuns: o.tieRuns, Cluster: o.cluster}
	if cmd.Flags().Changed("seed") {
		in.Seed = &o.seed
	}
	res, err := simulate.Run(cmd.Context(), in)
	o.doneImages()
	if err != nil {
		return usageError{err}
	}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		switch format {
		case "json":
			return simreport.WriteJSON(w, res)
		case "html":
			return simreport.WriteHTML(w, res)
		}
		return simreport.WriteText(w, res, simreport.TextOptions{Color: colour})
	})
	if err != nil {
		return err
	}
	if res.Failed() || o.inputProblems > 0 {
		return exitError{ExitFindings}
	}
	return o.failGate.exit(o.input)
}

// load reads every object. A document that is not a Kubernetes object
// (Helm values, a kustomization) is skipped with a load-error warning. A document
// that does not load, and a second object with the same kind, namespace
// and name, are reported and left out: the rest is still simulated, and
// the run exits 1 (o.inputProblems).
func (o *simulateOptions) load(args []string) ([]*manifest.Object, error) {
	ins, inErrs := o.resolveInputs(&o.scope, args, o.streams.In)
	failed := false
	for _, e := range inErrs {
		if f, report, ok := inputFinding(o.cfg.Settings(), e); ok {
			if report {
				o.input = append(o.input, f)
			}
			continue
		}
		fmt.Fprintf(o.streams.Err, "error: %v\n", e)
		failed = true
	}
	if failed {
		return nil, exitError{ExitError} // a path that cannot be read is a usage error
	}
	objs, errs := manifest.ReadAll(ins)
	for _, e := range errs {
		if f, report, ok := inputFinding(o.cfg.Settings(), e); ok {
			if report {
				o.input = append(o.input, f)
			}
			continue
		}
		fmt.Fprintf(o.streams.Err, "error: %v (left out of the simulation)\n", e)
		o.inputProblems++
	}
	return o.dedupe(objs), nil
}

// dedupe keeps the first of objects with the same kind, namespace and
// name, as the API server would refuse the second create; counting both
// would merge two workloads into one line.
func (o *simulateOptions) dedupe(objs []*manifest.Object) []*manifest.Object {
	first := map[string]*manifest.Object{}
	out := objs[:0]
	for _, obj := range objs {
		ns := obj.Namespace
		if ns == "" {
			ns = "default"
		}
		k := obj.Kind + "/" + ns + "/" + obj.Name
		generated := obj.Root != nil && obj.Root.Get("metadata").String("name") == ""
		if prev, ok := first[k]; ok && obj.Name != "" && !generated {
			fmt.Fprintf(o.streams.Err, "error: %s: %s %s/%s is defined twice (first in %s); the second is left out of the simulation\n",
				obj.File, obj.Kind, ns, obj.Name, prev.File)
			o.inputProblems++
			continue
		}
		first[k] = obj
		out = append(out, obj)
	}
	return out
}
