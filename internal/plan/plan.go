package plan

import (
	"context"
	"fmt"
	"sort"

	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/nodeconfig/generate"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// Input is what a plan reads.
type Input struct {
	Current *cluster.Cluster
	Model   winsupport.Model // the current cluster's Kubernetes release
	// Changes are applied in order to a copy of Current. With Target set
	// they are applied to Target instead (a version or RuntimeClass change
	// beside a target file), and the pool changes are derived from the two
	// files.
	Changes []Change
	Target  *cluster.Cluster

	Objects  []*manifest.Object
	Rules    []*rule.Rule     // enabled lint rules; nil runs none
	Images   rule.ImageLookup // --resolve-images; nil guesses from tags
	Replicas map[string]int32

	// Containerd is the Windows nodes' current containerd release, ""
	// when unknown.
	Containerd string
	// ValidateNodes, when set, runs the node rules over the current node's
	// configuration files (--node-config) against the target; the CLI
	// wires in nodeconfig.Validate, which this package does not import
	// (its kubelet and kube-proxy types are heavy: internal/depcheck).
	ValidateNodes func(NodeTarget) []rule.Finding
	// NodeTemplate gives the network settings of the generated node
	// configuration (CNI, CIDRs); nil uses DefaultNodeTemplate.
	NodeTemplate *generate.Node
}

// Report is the answer: what changes, what it does to each workload and
// pool, what the nodes need, and the steps to get there.
type Report struct {
	KubernetesBefore string         `json:"kubernetesBefore"`
	KubernetesAfter  string         `json:"kubernetesAfter"`
	Changes          []Change       `json:"changes"`
	Summary          Summary        `json:"summary"`
	Pools            []PoolDiff     `json:"pools"`
	Workloads        []Workload     `json:"workloads"`
	Nodes            []NodeConfig   `json:"nodes,omitempty"`
	NodeFindings     []rule.Finding `json:"-"`
	NodeIssues       []NodeIssue    `json:"nodeIssues,omitempty"`
	Steps            []Step         `json:"steps"`
	Warnings         []string       `json:"warnings,omitempty"`

	// Before and After are the two simulations, as `winkube simulate`
	// reports them on the current and the target cluster.
	Before *simulate.Result `json:"-"`
	After  *simulate.Result `json:"-"`
	// TargetCluster is the cluster after the changes.
	TargetCluster *cluster.Cluster `json:"-"`
}

// Summary counts workloads by verdict, and the ready replicas lost.
type Summary struct {
	Workloads int `json:"workloads"`
	Unchanged int `json:"unchanged"`
	Moves     int `json:"moves"`
	Fixed     int `json:"fixed"`
	Degraded  int `json:"degraded"`
	Breaks    int `json:"breaks"`
	AtRisk    int `json:"atRisk"`
	// ReplicasLost is the capacity lost in replicas: the ready replicas
	// the workloads that break or degrade have fewer of after the change
	// (Breaks and Degraded count the workloads).
	ReplicasLost int `json:"replicasLost"`
}

// Broken reports whether the change leaves some workload with fewer ready
// replicas than before.
func (r *Report) Broken() bool { return r.Summary.Breaks+r.Summary.Degraded > 0 }

// Run plans the changes.
func Run(ctx context.Context, in Input) (*Report, error) {
	tgt, err := Apply(in)
	if err != nil {
		return nil, err
	}
	rep := &Report{KubernetesBefore: in.Model.V.String(), KubernetesAfter: tgt.model.V.String(), TargetCluster: tgt.cluster}
	rep.Changes = tgt.changes
	if in.Target != nil {
		rep.Changes = append(DiffPools(in.Current, in.Target), tgt.changes...)
	}
	afterObjs, afterRCs := withRuntimeClasses(in.Objects, tgt.runtimeClasses)
	// Every simulation of the plan (current, target, the steps' interim
	// clusters) validates the same workloads: once per release and set
	// of RuntimeClasses is enough.
	tgt.memo = simulate.NewMemo()

	// The two simulations and the two lint runs are independent: run
	// them at once.
	var beforeF, afterF []rule.Finding
	var errBefore, errAfter error
	parallel(
		func() {
			nodes, pools := in.Current.Nodes()
			rep.Before, errBefore = simulate.Run(ctx, simulate.Input{Nodes: nodes, Pools: pools, Objects: in.Objects, Model: in.Model, Images: in.Images, Replicas: in.Replicas, Memo: tgt.memo, NoDependencies: true})
		},
		func() {
			nodes, pools := tgt.cluster.Nodes()
			rep.After, errAfter = simulate.Run(ctx, simulate.Input{Nodes: nodes, Pools: pools, Objects: afterObjs, RuntimeClasses: afterRCs, Model: tgt.model, Images: in.Images, Replicas: in.Replicas, Memo: tgt.memo, NoDependencies: true})
		},
		func() {
			if in.Rules != nil {
				beforeF = engine.Check(in.Objects, engine.Options{Rules: in.Rules, Cluster: in.Current, Model: in.Model, Images: in.Images}).Findings
			}
		},
		func() {
			if in.Rules != nil {
				afterF = engine.Check(afterObjs, engine.Options{Rules: in.Rules, Cluster: tgt.cluster, Model: tgt.model, Images: in.Images, RuntimeClasses: afterRCs}).Findings
			}
		},
	)
	if errBefore != nil {
		return nil, fmt.Errorf("simulating the current cluster: %w", errBefore)
	}
	if errAfter != nil {
		return nil, fmt.Errorf("simulating the target cluster: %w", errAfter)
	}
	rep.Workloads = compare(rep.Before, rep.After, newFindings(beforeF, afterF))
	rep.Summary = summarise(rep.Workloads)
	rep.Pools = diffPools(in.Current, tgt.cluster, rep.Before, rep.After)
	rep.Warnings = supportWarnings(tgt)
	rep.Nodes, rep.NodeFindings, err = nodeConfigs(in, tgt)
	if err != nil {
		return nil, err
	}
	rep.NodeIssues = nodeIssues(rep.NodeFindings)
	rep.Steps = steps(in, tgt, rep)
	return rep, nil
}

// Target is the cluster and model after the changes.
type Target struct {
	cluster        *cluster.Cluster
	model          winsupport.Model
	containerd     string
	runtimeClasses map[string]*nodev1.RuntimeClass
	changes        []Change // as applied, with their details
	memo           *simulate.Memo
}

// Apply applies the input's changes and returns the target state; an
// error names the flag whose value does not fit the cluster.
func Apply(in Input) (*Target, error) {
	base := in.Current
	if in.Target != nil {
		base = in.Target
	}
	model := in.Model
	if in.Target != nil && in.Target.KubernetesVersion != "" {
		v, err := winsupport.ParseVersion(in.Target.KubernetesVersion)
		if err != nil {
			return nil, fmt.Errorf("--to: kubernetesVersion: %w", err)
		}
		model = winsupport.ForVersion(v)
	}
	s := newState(base, model)
	s.containerd = in.Containerd
	applied := make([]Change, len(in.Changes))
	for i, c := range in.Changes {
		if c.apply == nil {
			return nil, fmt.Errorf("change %s %s was not made by this package's parsers", c.Kind, c.Target)
		}
		detail, err := c.apply(s)
		if err != nil {
			return nil, err
		}
		if detail != "" {
			c.Detail = detail
		}
		applied[i] = c
	}
	return &Target{cluster: s.cluster, model: s.model, containerd: s.containerd, runtimeClasses: s.runtimeClasses, changes: applied}, nil
}

// Cluster is the target cluster.
func (t *Target) Cluster() *cluster.Cluster { return t.cluster }

// Model is the target's Kubernetes release.
func (t *Target) Model() winsupport.Model { return t.model }

// RuntimeClasses are the RuntimeClasses the changes add or replace.
func (t *Target) RuntimeClasses() []*nodev1.RuntimeClass {
	var out []*nodev1.RuntimeClass
	for _, rc := range t.runtimeClasses {
		out = append(out, rc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// withRuntimeClasses leaves out of objs the RuntimeClasses that changed
// and returns the changed ones to pass beside them.
func withRuntimeClasses(objs []*manifest.Object, changed map[string]*nodev1.RuntimeClass) ([]*manifest.Object, []*nodev1.RuntimeClass) {
	if len(changed) == 0 {
		return objs, nil
	}
	var out []*manifest.Object
	for _, o := range objs {
		if o.Kind == "RuntimeClass" && changed[o.Name] != nil {
			continue
		}
		out = append(out, o)
	}
	var rcs []*nodev1.RuntimeClass
	for _, rc := range changed {
		rcs = append(rcs, rc)
	}
	sort.Slice(rcs, func(i, j int) bool { return rcs[i].Name < rcs[j].Name })
	return out, rcs
}
