package plan

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// Step is one step of the blue/green migration.
type Step struct {
	Number    int        `json:"number"`
	Kind      string     `json:"kind"` // control-plane, create-pool, node-config, images, pins, cordon, drain, remove-pool
	Title     string     `json:"title"`
	Details   []string   `json:"details,omitempty"`
	Commands  []string   `json:"commands,omitempty"`
	Evictions []Eviction `json:"evictions,omitempty"`
	// Check is what simulating the cluster after this step says: every
	// workload keeps at least as many ready replicas as its
	// PodDisruptionBudget requires, or which one does not.
	Check   string   `json:"check,omitempty"`
	Blocked []string `json:"blocked,omitempty"`
}

// Eviction is one pod evicted in a drain wave.
type Eviction struct {
	Workload  string `json:"workload"`
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"` // the simulated pod's name
	Node      string `json:"node"`
	Budget    string `json:"budget,omitempty"` // namespace/name of the PodDisruptionBudget
	// Allowed is the budget's status.disruptionsAllowed just before the
	// eviction: the API server grants it only above zero.
	Allowed int `json:"allowed,omitempty"`
	// Replaced says the pod's replacement starts on the pools that remain
	// before the next wave; false when the simulation finds no room or no
	// matching node for it.
	Replaced bool `json:"replaced"`
}

// Migration is what the blue/green path replaces: each old pool and the
// pool that takes its place.
type Migration struct {
	Old, New cluster.Pool
}

// replaced lists the current pools whose nodes must be replaced: removed,
// moved to another Windows build or OS, or Windows pools when containerd
// changes. New is the zero Pool for a removed pool.
func replaced(in Input, t *Target) []Migration {
	next := map[string]cluster.Pool{}
	for _, p := range t.cluster.Pools {
		next[p.Name] = p
	}
	var out []Migration
	for _, p := range in.Current.Pools {
		n, ok := next[p.Name]
		switch {
		case !ok:
			out = append(out, Migration{Old: p})
		case n.WindowsBuild != p.WindowsBuild || n.OS != p.OS || (p.OS == "windows" && t.containerd != in.Containerd):
			n = copyPool(n)
			n.Name = p.Name + "-" + suffix(n)
			for _, k := range providerPoolLabels {
				if _, ok := n.Labels[k]; ok {
					n.Labels[k] = n.Name // the new pool's nodes carry its own name
				}
			}
			out = append(out, Migration{Old: p, New: n})
		}
	}
	return out
}

func suffix(p cluster.Pool) string {
	if b, ok := winsupport.Default().BuildByNumber(p.WindowsBuild); ok && len(b.Tags) > 0 {
		return b.Tags[0]
	}
	return "new"
}

func steps(in Input, t *Target, rep *Report) []Step {
	var out []Step
	add := func(s Step) {
		s.Number = len(out) + 1
		out = append(out, s)
	}
	for _, p := range t.cluster.PoolsOf("windows") {
		b, ok := t.model.BuildByNumber(p.WindowsBuild)
		if !ok || t.model.NodeSupported(b) {
			continue
		}
		next, _ := t.model.LTSCFor(nil)
		add(Step{Kind: "unsupported-pool", Title: fmt.Sprintf("Move pool %s off %s before the upgrade: Kubernetes %s does not support it as a node OS", p.Name, b.Name, t.model.V),
			Details: []string{fmt.Sprintf("%s is supported in Kubernetes %s (https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support)", b.Name, b.Supports),
				fmt.Sprintf("plan the move: winkube plan --set-pool %s:build=%s ...", p.Name, next.Build)}})
	}
	if t.model.V != in.Model.V {
		add(Step{Kind: "control-plane", Title: fmt.Sprintf("Upgrade the control plane to Kubernetes %s", t.model.V),
			Details:  []string{"upgrade the control plane first: kubelets may be older than the API server, never newer (https://kubernetes.io/releases/version-skew-policy/#kubelet)"},
			Commands: []string{"kubectl version", "kubectl get nodes -o wide"}})
	}
	migs := replaced(in, t)
	var added []cluster.Pool
	for _, m := range migs {
		if m.New.Name != "" {
			added = append(added, m.New)
		}
	}
	// Pools the target adds outright are created like the new pools.
	for _, p := range t.cluster.Pools {
		if !hasPool(in.Current.Pools, p.Name) {
			added = append(added, p)
		}
	}
	var old []string
	for _, m := range migs {
		old = append(old, m.Old.Name)
	}
	pins, hasPins := pinStep(in, migs)
	objs, rcs := in.Objects, t.runtimeClasses
	if hasPins {
		objs, rcs = applyPins(objs, rcs, movedBuilds(migs))
	}
	// The interim clusters are simulated at once: each is independent.
	interim := withPools(in.Current, added, nil)
	var sims [3]*simulate.Result
	var msgs [3]string
	parallel(
		func() {
			if len(added) > 0 {
				sims[0], msgs[0] = simulateCluster(in, t, interim, in.Objects, t.runtimeClasses)
			}
		},
		func() {
			if hasPins {
				sims[1], msgs[1] = simulateCluster(in, t, interim, objs, rcs)
			}
		},
		func() {
			if len(old) > 0 {
				sims[2], msgs[2] = simulateCluster(in, t, withPools(in.Current, added, old), objs, rcs)
			}
		},
	)
	check := func(i int) string {
		if sims[i] == nil {
			return msgs[i]
		}
		return budgetCheck(in.Objects, rep.Before, sims[i])
	}
	for _, p := range added {
		s := Step{Kind: "create-pool", Title: fmt.Sprintf("Create pool %s: %s", p.Name, poolText(p)), Commands: poolCommands(p)}
		if p.OS == "windows" {
			s.Details = append(s.Details, "write its node configuration: "+nodeConfigCommand(p.Name)+" (see the node section)")
		}
		add(s)
	}
	if len(added) > 0 {
		out[len(out)-1].Check = check(0)
	}
	if s, ok := imageStep(in, t, rep, migs); ok {
		add(s)
	}
	if hasPins {
		pins.Check = check(1)
		add(pins)
	}
	if len(old) == 0 {
		return out
	}
	cordon := Step{Kind: "cordon", Title: "Cordon the old pool(s) " + strings.Join(old, ", ") + " so that no new pod lands there", Check: check(2)}
	for _, m := range migs {
		cordon.Commands = append(cordon.Commands, "kubectl cordon -l "+poolSelector(m.Old))
	}
	add(cordon)
	for _, s := range drain(in, rep.Before, sims[2], old) {
		add(s)
	}
	for _, m := range migs {
		add(Step{Kind: "remove-pool", Title: "Delete the drained pool " + m.Old.Name,
			Commands: []string{"kubectl drain -l " + poolSelector(m.Old) + " --ignore-daemonsets --delete-emptydir-data --timeout=15m",
				"kubectl delete node -l " + poolSelector(m.Old)}})
	}
	return out
}

// parallel runs the functions at once and waits for them all.
func parallel(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

func hasPool(ps []cluster.Pool, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

// withPools is the current cluster with pools added and the named ones
// cordoned (their nodes unschedulable), as an interim state of the
// migration.
func withPools(cur *cluster.Cluster, add []cluster.Pool, cordon []string) *cluster.Cluster {
	s := newState(cur, winsupport.Model{})
	for _, p := range add {
		s.addPool(p)
	}
	if len(cordon) > 0 {
		nodes, pools := s.cluster.Nodes()
		cordoned := make([]*corev1.Node, len(nodes))
		for i, n := range nodes {
			n = n.DeepCopy()
			if slices.Contains(cordon, pools[n.Name]) {
				n.Spec.Unschedulable = true
			}
			cordoned[i] = n
		}
		c := cluster.FromNodes(cordoned)
		c.ObservedPools = pools
		return c
	}
	return s.cluster
}

// simulateCluster simulates an interim cluster with the target's model
// and RuntimeClasses and checks it against the current state.
func simulateCluster(in Input, t *Target, c *cluster.Cluster, all []*manifest.Object, changed map[string]*nodev1.RuntimeClass) (*simulate.Result, string) {
	objs, rcs := withRuntimeClasses(all, changed)
	nodes, pools := c.Nodes()
	res, err := simulate.Run(context.Background(), simulate.Input{Nodes: nodes, Pools: pools, Objects: objs, RuntimeClasses: rcs, Model: t.model, Images: in.Images, Replicas: in.Replicas, Memo: t.memo, NoDependencies: true})
	if err != nil {
		return nil, "not simulated: " + err.Error()
	}
	return res, ""
}

func budgetCheck(objs []*manifest.Object, before, res *simulate.Result) string {
	ready := map[string]int{}
	replicas := map[string]int{}
	for _, w := range before.Workloads {
		replicas[w.Workload] = w.Replicas
	}
	for _, w := range res.Workloads {
		ready[w.Workload] = stateOf(w).Ready
	}
	bs := budgets(objs, replicas)
	var bad []string
	for _, w := range before.Workloads {
		b := bs[w.Workload]
		if b == nil {
			continue
		}
		if r := ready[w.Workload]; r < b.desired() && r < stateOf(w).Ready {
			bad = append(bad, fmt.Sprintf("%s: %d ready, PodDisruptionBudget %s needs %d", w.Workload, r, b.name, b.desired()))
		}
	}
	if len(bad) > 0 {
		return "fails: " + strings.Join(bad, "; ")
	}
	return "ok: every workload keeps the ready replicas its PodDisruptionBudget requires"
}

// providerPoolLabels are the node labels managed services name a node's
// pool with (as internal/cluster derives pools from them).
var providerPoolLabels = []string{"kubernetes.azure.com/agentpool", "agentpool", "eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name", "cloud.google.com/gke-nodepool", "node.kubernetes.io/pool"}

// poolSelector is a label selector for the pool's nodes.
func poolSelector(p cluster.Pool) string {
	for _, k := range providerPoolLabels {
		if v := p.Labels[k]; v != "" {
			return k + "=" + v
		}
	}
	sel := cluster.LabelOS + "=" + p.OS
	if p.WindowsBuild != "" {
		sel += "," + cluster.LabelWindowsBuild + "=" + p.WindowsBuild
	}
	return sel
}

func poolCommands(p cluster.Pool) []string {
	var out []string
	sel := poolSelector(p)
	var ls []string
	for k, v := range p.Labels {
		ls = append(ls, k+"="+v)
	}
	sort.Strings(ls)
	if len(ls) > 0 {
		out = append(out, "kubectl label nodes -l "+sel+" --overwrite "+strings.Join(ls, " "))
	}
	for _, t := range p.Taints {
		out = append(out, "kubectl taint nodes -l "+sel+" --overwrite "+taintString(t))
	}
	out = append(out, "kubectl get nodes -l "+sel+" -o wide")
	return out
}
