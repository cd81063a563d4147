package simulate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

// explain turns a pending pod's rejections into winkube's own lines, one
// per pool and reason: the scheduler no longer names taints, and never
// says which label or resource fell short.
func explain(sp *schedPod, d decision, m winsupport.Model) []string {
	type line struct {
		pool  string
		nodes int
		text  string
	}
	var lines []line
	index := map[string]int{}
	for _, v := range d.verdicts {
		text := why(sp, v, m)
		key := v.class.rep.pool + "\x00" + text
		if i, ok := index[key]; ok {
			lines[i].nodes += v.nodes
			continue
		}
		index[key] = len(lines)
		lines = append(lines, line{pool: v.class.rep.pool, nodes: v.nodes, text: text})
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].pool < lines[j].pool })
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("pool %s (%d %s): %s", l.pool, l.nodes, plural(l.nodes, "node"), l.text)
	}
	return out
}

// why explains one verdict.
func why(sp *schedPod, v verdict, m winsupport.Model) string {
	n := v.class.rep
	switch {
	case v.taint != nil:
		t := v.taint
		tol := fmt.Sprintf("{key: %s, operator: Equal, value: %s, effect: %s}", t.Key, t.Value, t.Effect)
		if t.Value == "" {
			tol = fmt.Sprintf("{key: %s, operator: Exists, effect: %s}", t.Key, t.Effect)
		}
		return fmt.Sprintf("taint %s is not tolerated; to run there, add the toleration %s", t.ToString(), tol)
	case slices.Contains(v.status.reasons, reasonUnschedulable):
		return "the nodes are cordoned (spec.unschedulable)"
	case slices.Contains(v.status.reasons, reasonNodeAffinity):
		return selectorMismatch(sp, n.obj)
	case slices.Contains(v.status.reasons, reasonPorts):
		return fmt.Sprintf("host port %s is already taken on the nodes", portList(sp.ports))
	case isResource(v.status.reasons):
		return fmt.Sprintf("%s: the pod requests %s; a node has %s allocatable", strings.Join(v.status.reasons, ", "),
			describeAmounts(sp.req, v.status.reasons), describeAmounts(n.alloc, v.status.reasons)) + usedNote(v) + podsNote(v.status.reasons, n)
	}
	return strings.Join(v.status.reasons, ", ")
}

// selectorMismatch names the node labels the pod's nodeSelector wants and
// the nodes lack; for node affinity it shows the nodes' OS labels.
func selectorMismatch(sp *schedPod, n *corev1.Node) string {
	var bad []string
	keys := make([]string, 0, len(sp.pod.Spec.NodeSelector))
	for k := range sp.pod.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := sp.pod.Spec.NodeSelector[k]
		if got, ok := n.Labels[k]; !ok {
			bad = append(bad, fmt.Sprintf("nodeSelector %s=%s, but the nodes have no %s label", k, want, k))
		} else if got != want {
			bad = append(bad, fmt.Sprintf("nodeSelector %s=%s, but the nodes have %s=%s", k, want, k, got))
		}
	}
	if len(bad) > 0 {
		return "the pod's " + strings.Join(bad, "; ")
	}
	return fmt.Sprintf("the pod's required node affinity does not match the nodes (kubernetes.io/os=%s%s)", n.Labels["kubernetes.io/os"], buildLabel(n))
}

func buildLabel(n *corev1.Node) string {
	if b := n.Labels["node.kubernetes.io/windows-build"]; b != "" {
		return ", node.kubernetes.io/windows-build=" + b
	}
	return ""
}

func isResource(reasons []string) bool {
	for _, r := range reasons {
		if !strings.HasPrefix(r, "Insufficient ") && r != reasonTooManyPods {
			return false
		}
	}
	return len(reasons) > 0
}

// describeAmounts renders the amounts the reasons are about.
func describeAmounts(a amounts, reasons []string) string {
	var parts []string
	for _, r := range reasons {
		switch r {
		case "Insufficient cpu":
			parts = append(parts, "cpu "+FormatCPU(a.MilliCPU))
		case "Insufficient memory":
			parts = append(parts, "memory "+FormatMemory(a.Memory))
		case "Insufficient ephemeral-storage":
			parts = append(parts, "ephemeral-storage "+FormatMemory(a.Ephemeral))
		case reasonTooManyPods:
		default:
			name := corev1.ResourceName(strings.TrimPrefix(r, "Insufficient "))
			parts = append(parts, fmt.Sprintf("%s %d", name, a.Scalar.get(name)))
		}
	}
	if len(parts) == 0 {
		return "one pod slot"
	}
	return strings.Join(parts, ", ")
}

func podsNote(reasons []string, n *node) string {
	if slices.Contains(reasons, reasonTooManyPods) {
		return fmt.Sprintf(" (at most %d pods per node)", n.allowed)
	}
	return ""
}

func portList(ps []corev1.ContainerPort) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d/%s", p.HostPort, toHostPort(p).protocol))
	}
	return strings.Join(out, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// usedNote says what bound pods already request on the least loaded
// node, when they request anything.
func usedNote(v verdict) string {
	u := leastUsed(v.class)
	if u.MilliCPU == 0 && u.Memory == 0 && u.Ephemeral == 0 && len(u.Scalar) == 0 {
		return ""
	}
	return fmt.Sprintf(", of which %s is already requested by other pods (least loaded node)", describeAmounts(u, v.status.reasons))
}

// leastUsed is what is already requested on the class's least loaded
// node, by CPU then memory: "Insufficient cpu" means the pod does not fit
// in what is left after it.
func leastUsed(c *class) amounts {
	best := c.rep.used
	for _, n := range c.nodes {
		if n.used.MilliCPU < best.MilliCPU || n.used.MilliCPU == best.MilliCPU && n.used.Memory < best.Memory {
			best = n.used
		}
	}
	return best
}
