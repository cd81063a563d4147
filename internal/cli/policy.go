package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
)

type policyExportOptions struct {
	scope
	output
	rules           []string
	severity        string
	nsSelector      string
	excludeNS       []string
	mode            string
	paramsNamespace string
	name            string
	fixes, noFixes  bool
	checkCluster    bool
	kubeconfig      string
	kubeContext     string
	streams         Streams

	export policy.Options
}

func newPolicyCommand(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Export the rules as native admission policies",
	}
	cmd.AddCommand(newPolicyExportCommand(s))
	return cmd
}

func newPolicyExportCommand(s Streams) *cobra.Command {
	o := &policyExportOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "export [flags]",
		Short: "Write the rules as ValidatingAdmissionPolicy/MutatingAdmissionPolicy or Kyverno policies",
		Long: `Write the rules that can be decided from one object as admission policies the
API server evaluates itself (CEL; no webhook to run), with a params ConfigMap
built from the cluster profile. Error rules deny, warning rules warn, info
rules audit (--mode warn or audit changes that). Rules that need other objects
or a registry are listed, with the reason, in the output's comment header.

The admission-policy format needs Kubernetes 1.36 (MutatingAdmissionPolicy
v1); apply the output with kubectl apply -f.`,
		Example: `  winkube policy export --cluster aks > winkube-policies.yaml && kubectl apply -f winkube-policies.yaml
  winkube policy export --cluster cluster.yaml --mode warn | kubectl apply -f -
  winkube policy export --cluster gke -o kyverno > kyverno.yaml
  winkube policy export --cluster eks --output-file admission-policy=vap.yaml --output-file kyverno=kyverno.yaml -q
  winkube policy export --cluster aks --rules missing-os-pin,missing-windows-toleration --exclude-namespaces kube-system,monitoring
  winkube policy export --check-cluster --context prod    # does the installed params ConfigMap still describe the nodes?`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.checkCluster {
				return o.runCheck(cmd.Context())
			}
			if err := o.validate(); err != nil {
				return err
			}
			return o.run()
		},
	}
	f := cmd.Flags()
	o.output.addFlags(f, "policy", policy.Formats...)
	o.scope.addFlags(f)
	// A policy enforces, so the cluster is never assumed (see validate).
	f.Lookup("cluster").Usage = "built-in profile (" + strings.Join(cluster.ProfileNames(), ", ") + ") or cluster file: a winkube Cluster, kubectl get nodes -o yaml, or a node-pool definition (required: the config's cluster, else this flag; an export never assumes the reference cluster)"
	f.StringSliceVar(&o.rules, "rules", nil, "export only these rule IDs (comma-separated; default every enabled rule)")
	f.StringVar(&o.severity, "severity", "info", "export only findings at or above this severity: error, warning or info")
	f.StringVar(&o.nsSelector, "namespace-selector", "", "check only namespaces matching this label selector (e.g. env=prod,team!=infra)")
	f.StringSliceVar(&o.excludeNS, "exclude-namespaces", []string{"kube-system"}, "namespaces never checked (comma-separated)")
	f.StringVar(&o.mode, "mode", "enforce", "enforce (errors deny, warnings warn, info audits), warn (everything warns) or audit (everything audits)")
	f.StringVar(&o.paramsNamespace, "params-namespace", "kube-system", "namespace of the winkube-cluster params ConfigMap; empty: each request's own namespace")
	f.StringVar(&o.name, "name", "winkube", "prefix of the exported objects' names")
	f.BoolVar(&o.fixes, "fixes", false, "add a MutatingAdmissionPolicy that applies the safe fixes; what it fixes is then admitted without a denial or warning")
	f.BoolVar(&o.checkCluster, "check-cluster", false, "export nothing: read (only) the installed params ConfigMap and the nodes, say where they disagree, exit 1 if they do")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file for --check-cluster (default $KUBECONFIG, ~/.kube/config, or the in-cluster service account)")
	f.StringVar(&o.kubeContext, "context", "", "kubeconfig context for --check-cluster")
	f.BoolVar(&o.noFixes, "no-fixes", false, "leave out the fixes: the default, kept for scripts written when the fixes were in by default; wins over --fixes")
	return cmd
}

func (o *policyExportOptions) validate() error {
	if err := o.output.validate(); err != nil {
		return err
	}
	sev, err := rule.ParseSeverity(o.severity)
	if err != nil {
		return usagef("--severity: %v", err)
	}
	mode, err := policy.ParseMode(o.mode)
	if err != nil {
		return usagef("--mode: %v", err)
	}
	var sel *metav1.LabelSelector
	if o.nsSelector != "" {
		if sel, err = metav1.ParseToLabelSelector(o.nsSelector); err != nil {
			return usagef("--namespace-selector: %v", err)
		}
	}
	if err := o.resolve(); err != nil {
		return err
	}
	if o.cluster.Assumed {
		// lint may assume a cluster and say so; a policy enforces, and
		// must never deny on an assumption.
		return usagef("policy export enforces a cluster's Windows taints and builds, which must not be assumed: pass --cluster %s or a cluster file (or set cluster in %s)",
			strings.Join(cluster.ProfileNames(), "|"), config.FileName)
	}
	enabled := o.enabled
	if len(o.rules) > 0 {
		byID := map[string]*rule.Rule{}
		for _, r := range o.enabled {
			byID[r.ID] = r
		}
		enabled = nil
		for _, id := range o.rules {
			r, ok := byID[strings.TrimSpace(id)]
			if !ok {
				return usagef("--rules: %q is not an enabled rule (winkube rules lists them)", id)
			}
			enabled = append(enabled, r)
		}
	}
	o.export = policy.Options{Rules: enabled, MinSeverity: sev, Cluster: o.cluster, Model: o.model, Mode: mode,
		NamespaceSelector: sel, ExcludeNamespaces: o.excludeNS, ParamsNamespace: o.paramsNamespace, Name: o.name, Fixes: o.fixes && !o.noFixes}
	if err := o.export.Validate(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

func (o *policyExportOptions) run() error {
	o.announce(o.streams.Err, o.quiet)
	return o.render(o.streams, func(w io.Writer, format string, _ bool) error {
		out, err := policy.Export(o.export, format)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	})
}

// checkTimeout bounds each request of --check-cluster.
const checkTimeout = 30 * time.Second

// maxCheckedNodes bounds the node pages --check-cluster reads.
const maxCheckedNodes = 50000

// runCheck is --check-cluster: the installed params ConfigMap against the
// live nodes (a get and a paged list; nothing is written).
func (o *policyExportOptions) runCheck(ctx context.Context) error {
	if o.paramsNamespace == "" {
		return usagef("--check-cluster reads the params ConfigMap of --params-namespace; with an empty one each namespace has its own: name the namespace to check")
	}
	if err := (&policy.Options{Name: o.name, ParamsNamespace: o.paramsNamespace}).Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := o.resolve(); err != nil {
		return err
	}
	cfg, _, err := fetch.Config(fetch.Options{Kubeconfig: o.kubeconfig, Context: o.kubeContext})
	if err != nil {
		return err
	}
	cfg.Timeout = checkTimeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cm, err := cs.CoreV1().ConfigMaps(o.paramsNamespace).Get(ctx, policy.ParamsName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the params ConfigMap %s/%s: %w (export and apply the policies first, or pass --params-namespace)", o.paramsNamespace, policy.ParamsName, err)
	}
	var nodes []*corev1.Node
	opts := metav1.ListOptions{Limit: 500}
	seen := map[string]bool{}
	for {
		list, err := cs.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing the nodes: %w", err)
		}
		for i := range list.Items {
			nodes = append(nodes, &list.Items[i])
		}
		opts.Continue = list.Continue
		if opts.Continue == "" {
			break
		}
		if seen[opts.Continue] || len(nodes) > maxCheckedNodes {
			return fmt.Errorf("listing the nodes: the API server keeps paging (%d nodes read, a repeated or endless continue token)", len(nodes))
		}
		seen[opts.Continue] = true
	}
	drift := policy.Drift(cm, nodes, o.model)
	for _, d := range drift {
		fmt.Fprintf(o.streams.Out, "drift: %s\n", d)
	}
	for _, u := range policy.Unchecked(cm, nodes, o.model) {
		fmt.Fprintf(o.streams.Err, "note: %s\n", u)
	}
	if len(drift) > 0 {
		fmt.Fprintf(o.streams.Err, "the params ConfigMap %s/%s does not describe the %d nodes: export again from a cluster file that does (kubectl get nodes -o yaml > nodes.yaml; winkube policy export --cluster nodes.yaml)\n", o.paramsNamespace, policy.ParamsName, len(nodes))
		return exitError{ExitFindings}
	}
	fmt.Fprintf(o.streams.Out, "the params ConfigMap %s/%s describes the %d nodes\n", o.paramsNamespace, policy.ParamsName, len(nodes))
	return nil
}
