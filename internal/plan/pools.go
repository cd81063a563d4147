package plan

import (
	"fmt"
	"sort"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/simulate"
)

// PoolDiff is one pool before and after: its nodes, build and the pods
// the simulations put on it.
type PoolDiff struct {
	Pool        string              `json:"pool"`
	OS          string              `json:"os"`
	BuildBefore string              `json:"buildBefore,omitempty"`
	BuildAfter  string              `json:"buildAfter,omitempty"`
	NodesBefore int                 `json:"nodesBefore"`
	NodesAfter  int                 `json:"nodesAfter"`
	PodsBefore  int                 `json:"podsBefore"`
	PodsAfter   int                 `json:"podsAfter"`
	UsageBefore *simulate.PoolUsage `json:"usageBefore,omitempty"`
	UsageAfter  *simulate.PoolUsage `json:"usageAfter,omitempty"`
}

func diffPools(cur, tgt *cluster.Cluster, before, after *simulate.Result) []PoolDiff {
	byName := map[string]*PoolDiff{}
	var order []string
	get := func(name, os string) *PoolDiff {
		if d, ok := byName[name]; ok {
			return d
		}
		byName[name] = &PoolDiff{Pool: name, OS: os}
		order = append(order, name)
		return byName[name]
	}
	for _, p := range cur.Pools {
		d := get(p.Name, p.OS)
		d.BuildBefore, d.NodesBefore = p.WindowsBuild, p.Count
	}
	for _, p := range tgt.Pools {
		d := get(p.Name, p.OS)
		d.BuildAfter, d.NodesAfter = p.WindowsBuild, p.Count
	}
	for i := range before.Pools {
		u := before.Pools[i]
		get(u.Pool, u.OS).UsageBefore = &u
	}
	for i := range after.Pools {
		u := after.Pools[i]
		get(u.Pool, u.OS).UsageAfter = &u
	}
	for _, w := range before.Workloads {
		for _, p := range w.Placed {
			get(p.Pool, "").PodsBefore += p.Count
		}
	}
	for _, w := range after.Workloads {
		for _, p := range w.Placed {
			get(p.Pool, "").PodsAfter += p.Count
		}
	}
	sort.Strings(order)
	out := make([]PoolDiff, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
}

// DiffPools describes a target cluster file against the current cluster
// as changes, for --to.
func DiffPools(cur, tgt *cluster.Cluster) []Change {
	var out []Change
	old := map[string]cluster.Pool{}
	for _, p := range cur.Pools {
		old[p.Name] = p
	}
	seen := map[string]bool{}
	for _, p := range tgt.Pools {
		seen[p.Name] = true
		o, ok := old[p.Name]
		switch {
		case !ok:
			out = append(out, Change{Kind: "add-pool", Target: p.Name, Detail: poolText(p)})
		case describePoolChange(o, p) != "no difference":
			out = append(out, Change{Kind: "set-pool", Target: p.Name, Detail: describePoolChange(o, p)})
		}
	}
	for _, p := range cur.Pools {
		if !seen[p.Name] {
			out = append(out, Change{Kind: "remove-pool", Target: p.Name, Detail: fmt.Sprintf("pool removed (%d nodes)", p.Count)})
		}
	}
	if cur.KubernetesVersion != tgt.KubernetesVersion && tgt.KubernetesVersion != "" {
		out = append(out, Change{Kind: "kubernetes-version", Target: tgt.KubernetesVersion,
			Detail: fmt.Sprintf("Kubernetes %s -> %s", orNone(cur.KubernetesVersion), tgt.KubernetesVersion)})
	}
	return out
}

func poolText(p cluster.Pool) string {
	s := fmt.Sprintf("%d %s nodes", p.Count, p.OS)
	if p.WindowsBuild != "" {
		s += " on " + p.WindowsBuild
	}
	if len(p.Taints) > 0 {
		s += ", taints " + taintList(p.Taints)
	}
	return s
}

// supportWarnings are the target's pools whose Windows build the target
// Kubernetes release does not support as a node OS, or that are
// end-of-life Semi-Annual Channel releases.
func supportWarnings(t *Target) []string {
	var out []string
	for _, p := range t.cluster.PoolsOf("windows") {
		b, ok := t.model.BuildByNumber(p.WindowsBuild)
		if !ok {
			continue
		}
		if !t.model.NodeSupported(b) {
			w := fmt.Sprintf("pool %s runs %s (%s), which Kubernetes %s does not support as a node OS (supported in %s)", p.Name, b.Name, b.Build, t.model.V, b.Supports)
			if next, ok := t.model.LTSCFor(nil); ok {
				w += fmt.Sprintf(": move it to %s with --set-pool %s:build=%s", next.Name, p.Name, next.Build)
			}
			out = append(out, w)
		}
		if b.EOL {
			out = append(out, fmt.Sprintf("pool %s runs %s (%s), a Semi-Annual Channel release out of Microsoft support", p.Name, b.Name, b.Build))
		}
	}
	return out
}
