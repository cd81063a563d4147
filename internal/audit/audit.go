package audit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Options configures an audit.
type Options struct {
	Rules []*rule.Rule // enabled lint rules, severities applied
	// Settings are the config's rule settings, applied to the node rules
	// and the audit's own; nil runs them as documented.
	Settings *rule.Settings
	// Model overrides the Kubernetes version read from the server.
	Model *winsupport.Model
	// NoSimulation skips the simulation.
	NoSimulation bool
	// NodeConfig checks the live kubelet configurations read (the
	// snapshot's Kubelets); nil skips that check.
	NodeConfig *NodeConfigCheck
}

// Result is one audit.
type Result struct {
	Server   string // API server version
	Model    winsupport.Model
	Findings []rule.Finding
	Rules    []*rule.Rule // every rule that ran, for SARIF
	Objects  int          // objects checked
	Nodes    int
	Pods     int
	// Simulation is the simulation on the live nodes; nil when skipped.
	Simulation *simulate.Result
	// Headroom is --max for each Windows workload: how many more
	// replicas fit.
	Headroom []Headroom
	Areas    []Area
	Notes    []string
	// Unread lists the kinds that could not be listed; the areas that
	// depend on them are "unknown", never "ready".
	Unread []string
}

// Headroom is how many more replicas of a workload fit.
type Headroom struct {
	Workload string `json:"workload"`
	MoreFit  int    `json:"moreFit"`
	// SameAs names the workload of the same shape (scheduling
	// constraints, requests, ports, images) whose answer this is.
	SameAs string `json:"sameAs,omitempty"`
}

// Derive computes the facts the node rules read.
func Derive(s *live.Snapshot, m winsupport.Model, tops []*manifest.Object) *Facts {
	f := &Facts{Snapshot: s, Model: m, Server: m.V, PodOS: map[*corev1.Pod]target.OS{}}
	c := s.Cluster()
	for _, o := range tops {
		w := o.Workload()
		if w == nil {
			continue
		}
		f.Workloads = append(f.Workloads, Workload{Object: o, Facts: resolve(w.Spec, w, s, c, m)})
	}
	for _, p := range s.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		w := &manifest.Workload{Spec: &p.Spec}
		f.PodOS[p] = resolve(&p.Spec, w, s, c, m).OS
	}
	return f
}

func resolve(spec *corev1.PodSpec, w *manifest.Workload, s *live.Snapshot, c *cluster.Cluster, m winsupport.Model) target.Facts {
	in := target.Input{Spec: spec, SpecPath: w.SpecPath, Cluster: c, Model: m}
	if spec.RuntimeClassName != nil {
		for _, rc := range s.RuntimeClasses {
			if rc.Name == *spec.RuntimeClassName {
				in.RuntimeClass = rc
			}
		}
	}
	return target.Resolve(in)
}

// Run audits a snapshot.
func Run(ctx context.Context, s *live.Snapshot, opts Options) (*Result, error) {
	m, note := live.ModelFor(s.Server)
	if opts.Model != nil {
		m, note = *opts.Model, ""
	}
	own := opts.Settings.ApplyAll(Rules(nil))
	res := &Result{Server: s.Server, Model: m, Rules: append(own, opts.Rules...), Nodes: len(s.Nodes), Pods: len(s.Pods)}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	owners := live.NewOwners(s)
	tops, err := live.TopLevel(s, owners)
	if err != nil {
		return nil, err
	}
	res.Objects = len(tops) + len(s.Nodes)
	f := Derive(s, m, tops)
	denied := opts.Settings.Apply(PermissionDenied)
	for _, d := range s.Denied {
		res.Unread = append(res.Unread, d.Resource)
		if denied != nil {
			res.Findings = append(res.Findings, rule.Finding{Rule: denied.ID, Severity: denied.Severity,
				Message: fmt.Sprintf("cannot list %s: %s", d.Resource, d.Err), Hint: d.Permission(), Object: &clusterObject})
		}
	}
	for _, nr := range NodeRules() {
		if run, ok := nr.Run.(NodeRun); ok {
			if r := opts.Settings.Apply(nr); r != nil {
				run(f, emitter{rule: r, out: &res.Findings})
			}
		}
	}
	if opts.NodeConfig != nil && len(s.Kubelets) > 0 {
		res.Rules = append(res.Rules, opts.Settings.ApplyAll(opts.NodeConfig.Rules)...)
		res.Findings = append(res.Findings, liveConfig(f, opts.NodeConfig, opts.Settings)...)
	}
	if a := s.KubeletAccess; a != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("read the kubelets of %d Windows node(s) %s", a.Nodes, accessWords(a.Path)))
	}
	res.Findings = append(res.Findings, live.Lint(s, tops, opts.Rules, m)...)
	if !opts.NoSimulation && len(s.Nodes) > 0 {
		if err := simulateLive(ctx, s, f, owners, opts.Settings, res); err != nil {
			return nil, err
		}
	}
	res.Areas = Areas(res)
	return res, nil
}

// accessWords says how the kubelets were reached.
func accessWords(path string) string {
	if path == "proxy" {
		return "through the API server's node proxy (nodes/proxy)"
	}
	return "directly on their ports (nodes/configz, nodes/stats, nodes/log)"
}
