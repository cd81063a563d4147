package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/simulate"
)

// evictionDenied is the API server's message for an eviction its budget
// does not allow (kubernetes/kubernetes v1.36.3
// pkg/registry/core/pod/storage/eviction.go).
const evictionDenied = "Cannot evict pod as it would violate the pod's disruption budget."

// group is the pods of one workload on one node, drained together.
type group struct {
	node, workload string
	pods           []simulate.PodResult
}

// drain orders the evictions of the old pools' pods into waves. Within a
// wave a pod is evicted only while its budget's disruptionsAllowed is
// above zero, each eviction taking one; between waves the evicted pods'
// replacements start on the pools that remain (as many as the cordoned
// cluster's simulation runs of the workload), giving the budget back.
func drain(in Input, before, cordoned *simulate.Result, old []string) []Step {
	replicas, ready := map[string]int{}, map[string]int{}
	for _, w := range before.Workloads {
		replicas[w.Workload] = w.Replicas
	}
	stay := map[string]int{}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, p := range before.Pods {
		if p.Rejected || p.Pending || p.StartFailure != "" || p.Node == "" {
			continue
		}
		ready[p.Workload]++
		if !slices.Contains(old, p.Pool) {
			stay[p.Workload]++
			continue
		}
		if strings.HasPrefix(p.Workload, "DaemonSet/") {
			continue // kubectl drain --ignore-daemonsets: they go with the node
		}
		k := [2]string{p.Node, p.Workload}
		g := byKey[k]
		if g == nil {
			g = &group{node: p.Node, workload: p.Workload}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.pods = append(g.pods, p)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].node != groups[j].node {
			return groups[i].node < groups[j].node
		}
		return groups[i].workload < groups[j].workload
	})
	bs := budgets(in.Objects, replicas)
	for _, b := range uniqueBudgets(bs) {
		b.healthy = 0
		for _, w := range b.workloads {
			b.healthy += ready[w]
		}
	}
	// Replacements: how many of each workload's pods run once the old
	// pools are cordoned, beyond those already elsewhere.
	spare := map[string]int{}
	if cordoned != nil {
		for _, w := range cordoned.Workloads {
			spare[w.Workload] = max(stateOf(w).Ready-stay[w.Workload], 0)
		}
	}
	labels := templateLabels(in.Objects)
	var out []Step
	for wave := 1; len(groups) > 0; wave++ {
		var evicted []Eviction
		var cmds []string
		var rest []*group
		for _, g := range groups {
			b := bs[g.workload]
			n := 0
			for n < len(g.pods) && (b == nil || b.allowed() > 0) {
				e := Eviction{Workload: g.workload, Namespace: g.pods[n].Namespace, Pod: g.pods[n].Pod, Node: g.node}
				if b != nil {
					e.Budget, e.Allowed = b.name, b.allowed()
					b.healthy--
				}
				evicted = append(evicted, e)
				n++
			}
			if n > 0 {
				cmds = append(cmds, evictCommand(g, n, labels[g.workload]))
			}
			if n < len(g.pods) {
				g.pods = g.pods[n:]
				rest = append(rest, g)
			}
		}
		if len(evicted) == 0 {
			s := Step{Kind: "drain", Title: fmt.Sprintf("Drain blocked: %d pod(s) cannot be evicted", podsIn(rest))}
			for _, g := range rest {
				b := bs[g.workload]
				s.Blocked = append(s.Blocked, fmt.Sprintf("%s on %s: %s (PodDisruptionBudget %s: %d healthy, %d required, and no replacement can start)",
					g.workload, g.node, evictionDenied, b.name, b.healthy, b.desired()))
			}
			s.Check = "fails: the drain cannot finish; lower the budget, add capacity to the new pools, or fix the workloads that cannot move"
			out = append(out, s)
			break
		}
		s := Step{Kind: "drain", Title: fmt.Sprintf("Drain wave %d: evict %d pod(s)", wave, len(evicted)), Evictions: evicted, Commands: cmds}
		back := map[string]bool{}
		for i, e := range evicted {
			if spare[e.Workload] > 0 {
				spare[e.Workload]--
				evicted[i].Replaced = true
				if b := bs[e.Workload]; b != nil {
					b.healthy++
				}
			}
			back[e.Workload] = true
		}
		for _, w := range slices.Sorted(maps.Keys(back)) {
			s.Commands = append(s.Commands, waitCommand(w, labels[w]))
		}
		s.Check = waveCheck(bs, back)
		out = append(out, s)
		groups = rest
	}
	return out
}

func podsIn(gs []*group) int {
	n := 0
	for _, g := range gs {
		n += len(g.pods)
	}
	return n
}

func uniqueBudgets(bs map[string]*budget) []*budget {
	seen := map[*budget]bool{}
	var out []*budget
	for _, w := range slices.Sorted(maps.Keys(bs)) {
		if b := bs[w]; !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// waveCheck says, for each budget the wave touched, how many pods are
// healthy once the replacements are ready against how many it requires.
func waveCheck(bs map[string]*budget, touched map[string]bool) string {
	var parts, bad []string
	seen := map[*budget]bool{}
	for _, w := range slices.Sorted(maps.Keys(touched)) {
		b := bs[w]
		if b == nil || seen[b] {
			continue
		}
		seen[b] = true
		parts = append(parts, fmt.Sprintf("%s %d healthy of %d required", b.name, b.healthy, b.desired()))
		if b.healthy < b.desired() {
			bad = append(bad, b.name)
		}
	}
	if len(bad) > 0 {
		return "fails: fewer healthy pods than the budget requires once the wave is over: " + strings.Join(parts, "; ")
	}
	if len(parts) == 0 {
		return "ok: no PodDisruptionBudget covers these pods"
	}
	return "ok: " + strings.Join(parts, "; ")
}

// templateLabels maps each workload to its pod template's labels.
func templateLabels(objs []*manifest.Object) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, o := range objs {
		if w := o.Workload(); w != nil && w.Template != nil {
			out[o.Kind+"/"+nsOf(o)+"/"+o.Name] = w.Template.Labels
		}
	}
	return out
}

// evictCommand evicts n of the group's pods through the eviction API:
// kubectl drain with a pod selector when the wave takes all of them, else
// n eviction requests, so that no eviction meets a budget that is spent.
func evictCommand(g *group, n int, l map[string]string) string {
	ns := g.pods[0].Namespace
	sel := labelList(l, ",")
	if n == len(g.pods) || sel == "" {
		return fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data --pod-selector '%s'", g.node, sel)
	}
	return fmt.Sprintf(`for p in $(kubectl get pods -n %s -l '%s' --field-selector spec.nodeName=%s -o name | head -n %d); do kubectl create --raw /api/v1/namespaces/%s/pods/${p#pod/}/eviction -f - <<<'{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"'${p#pod/}'","namespace":"%s"}}'; done`,
		ns, sel, g.node, n, ns, ns)
}

// waitCommand waits for a workload's replacements to be ready.
func waitCommand(ref string, l map[string]string) string {
	kind, rest, _ := strings.Cut(ref, "/")
	ns, name, _ := strings.Cut(rest, "/")
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		return fmt.Sprintf("kubectl rollout status %s/%s -n %s --timeout=15m", strings.ToLower(kind), name, ns)
	}
	return fmt.Sprintf("kubectl wait pod -n %s -l '%s' --for=condition=Ready --timeout=15m", ns, labelList(l, ","))
}
