package audit

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
)

// poolLabels name a node's pool, in the order tried: AKS, kOps/generic,
// EKS, GKE, Karpenter.
var poolLabels = []string{"kubernetes.azure.com/agentpool", "agentpool", "eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "karpenter.sh/nodepool"}

// perNodeFields differ between the nodes of a pool by design.
var perNodeFields = map[string]bool{"podCIDR": true, "providerID": true, "tlsCertFile": true, "tlsPrivateKeyFile": true, "address": true, "staticPodURL": true}

// Pool names the pool a node belongs to: its pool label, else its
// instance type and Windows build.
func Pool(n *corev1.Node) string {
	for _, l := range poolLabels {
		if v := n.Labels[l]; v != "" {
			return l + "=" + v
		}
	}
	return fmt.Sprintf("instance type %s, build %s", cmp.Or(n.Labels[corev1.LabelInstanceTypeStable], "unknown"), cmp.Or(cluster.KernelBuild(n), "unknown"))
}

var windowsNodeConfigDrift = &rule.Rule{ID: "windows-node-config-drift", Title: "A Windows node's live kubelet configuration differs from the rest of its pool", Severity: rule.Warning, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "Among the Windows nodes of one pool (the same pool label, else the same instance type and Windows build), a node whose kubelet serves a `/configz` with a field whose value differs from the one most of the pool has. Per-node fields (podCIDR, providerID, TLS file paths) are left out.",
		Why:     "Nodes of one pool are meant to be interchangeable: a node that was configured by hand, missed a rollout or kept an old bootstrap script reserves, evicts or reaches the runtime differently, and pods behave differently depending on where they land.",
		Fix:     "Re-apply the pool's kubelet configuration to the node (or replace the node from the pool's template) and restart the kubelet.",
		Sources: []string{"kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file (Set Kubelet Parameters Via A Configuration File)", "kubernetes/kubernetes v1.36.3 cmd/kubelet/app/server.go (initConfigz: the effective configuration on /configz)"},
	},
	Run: NodeRun(func(f *Facts, e emitter) {
		pools := map[string][]*corev1.Node{}
		flat := map[string]map[string]string{}
		for _, k := range f.Snapshot.Kubelets {
			n := f.Snapshot.Node(k.Node)
			if n == nil || k.Config == nil {
				continue
			}
			var v any
			if json.Unmarshal(k.Config, &v) != nil {
				continue
			}
			fields := map[string]string{}
			flatten("", v, fields)
			flat[n.Name] = fields
			pools[Pool(n)] = append(pools[Pool(n)], n)
		}
		names := slices.Sorted(maps.Keys(pools))
		for _, p := range names {
			nodes := pools[p]
			if len(nodes) < 2 {
				continue
			}
			for _, d := range drift(nodes, flat) {
				e.report(nodeObject(d.node), "", fmt.Sprintf("Windows node %s's live kubelet configuration differs from pool %s (%d nodes): %s", d.node.Name, p, len(nodes), strings.Join(d.fields, "; ")),
					"re-apply the pool's KubeletConfiguration to "+d.node.Name+" and restart the kubelet")
			}
		}
	}),
}

type nodeDrift struct {
	node   *corev1.Node
	fields []string
}

// drift lists, for each node that differs from its pool's majority, the
// fields that differ with both values.
func drift(nodes []*corev1.Node, flat map[string]map[string]string) []nodeDrift {
	keys := map[string]bool{}
	for _, n := range nodes {
		for k := range flat[n.Name] {
			if !perNodeFields[strings.SplitN(k, ".", 2)[0]] {
				keys[k] = true
			}
		}
	}
	sorted := slices.Sorted(maps.Keys(keys))
	byNode := map[string][]string{}
	for _, k := range sorted {
		count := map[string]int{}
		for _, n := range nodes {
			count[value(flat[n.Name], k)]++
		}
		if len(count) < 2 {
			continue
		}
		major, most := "", 0
		for v, c := range count {
			if c > most || (c == most && v < major) {
				major, most = v, c
			}
		}
		for _, n := range nodes {
			if v := value(flat[n.Name], k); v != major {
				byNode[n.Name] = append(byNode[n.Name], fmt.Sprintf("%s is %s where %d of %d have %s", k, v, most, len(nodes), major))
			}
		}
	}
	var out []nodeDrift
	for _, n := range nodes {
		if fs := byNode[n.Name]; len(fs) > 0 {
			out = append(out, nodeDrift{n, fs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node.Name < out[j].node.Name })
	return out
}

func value(fields map[string]string, k string) string {
	if v, ok := fields[k]; ok {
		return v
	}
	return "unset"
}

// flatten writes each scalar of v under its dotted path; lists are kept
// whole, as their JSON.
func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, c, out)
		}
	default:
		b, _ := json.Marshal(t)
		out[prefix] = string(b)
	}
}
