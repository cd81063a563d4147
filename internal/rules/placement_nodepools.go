package rules

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// windowsTaintEdit is the taint the fix adds: the convention the
// reference profile and most Windows manifests tolerate.
var windowsTaintEdit = map[string]any{"key": "os", "value": "windows", "effect": "NoSchedule"}

// WindowsPoolUntainted: node pools kept as Kubernetes-style YAML (a
// Karpenter NodePool, an eksctl ClusterConfig) that make Windows nodes
// without a taint. The same check runs on Terraform, ARM, Bicep and
// scripts when they are linted or passed as --cluster (internal/cloudprofile).
var WindowsPoolUntainted = &rule.Rule{
	ID:       "windows-pool-untainted",
	Title:    "Windows node pool has no NoSchedule taint",
	Severity: rule.Warning,
	Category: rule.Placement,
	Kinds:    []string{"NodePool", "ClusterConfig"},
	Doc: rule.Doc{
		What: "Reports Karpenter NodePools (karpenter.sh) that require kubernetes.io/os In [windows] and eksctl ClusterConfig node groups (eksctl.io) with a Windows amiFamily whose nodes get no NoSchedule or NoExecute taint.",
		Why:  "Without a taint, every Linux pod that does not select kubernetes.io/os=linux (most Helm charts, most operators' pods) can be scheduled onto the Windows nodes, where its image has no windows/amd64 entry and the pod never starts. Neither Karpenter nor EKS taints Windows nodes by itself.",
		Fix:  "Taint the pool (os=windows:NoSchedule; winkube fix adds it, as an unsafe fix, since Windows workloads then need the toleration) and give Windows workloads the toleration and a kubernetes.io/os: windows nodeSelector.",
		Sources: []string{
			"kubernetes.io/docs/concepts/windows/user-guide/ (Ensuring OS-specific workloads land on the appropriate container host: taints and tolerations)",
			"karpenter.sh/docs/concepts/nodepools/ (spec.template.spec.taints)",
			"eksctl.io/usage/windows-worker-nodes/ and eksctl.io/usage/schema/ (nodeGroups[].taints)",
		},
	},
	Object: func(p *rule.Pass) {
		o := p.Object
		switch {
		case o.Kind == "NodePool" && o.Group() == "karpenter.sh":
			spec := o.Root.Get("spec").Get("template").Get("spec")
			if !requiresWindows(spec.Get("requirements")) || repelsAll(spec.Get("taints")) {
				return
			}
			p.Report(rule.Finding{Path: "spec.template.spec.taints",
				Message: fmt.Sprintf("NodePool %s makes Windows nodes without a NoSchedule taint: Linux pods that do not select kubernetes.io/os=linux can land on them and never start", o.Name),
				Fix:     &rule.Fix{Title: "taint the NodePool's nodes os=windows:NoSchedule", Edits: []rule.Edit{{Op: rule.Append, Path: "spec.template.spec.taints", Value: windowsTaintEdit}}}})
		case o.Kind == "ClusterConfig" && o.Group() == "eksctl.io":
			for _, list := range []string{"nodeGroups", "managedNodeGroups"} {
				groups := o.Root.Get(list)
				if groups == nil || groups.Kind != manifest.SequenceNode {
					continue
				}
				for i, g := range groups.Content {
					fam := g.String("amiFamily")
					if !strings.Contains(strings.ToLower(fam), "windows") || repelsAll(g.Get("taints")) {
						continue
					}
					path := fmt.Sprintf("%s[%d]", list, i)
					p.Report(rule.Finding{Path: path + ".amiFamily",
						Message: fmt.Sprintf("node group %s (amiFamily %s) makes Windows nodes without a NoSchedule taint: Linux pods that do not select kubernetes.io/os=linux can land on them and never start", g.String("name"), fam),
						Fix:     &rule.Fix{Title: "taint the node group os=windows:NoSchedule", Edits: []rule.Edit{{Op: rule.Append, Path: path + ".taints", Value: windowsTaintEdit}}}})
				}
			}
		}
	},
}

// requiresWindows: a requirement kubernetes.io/os In [windows].
func requiresWindows(reqs *manifest.Node) bool {
	if reqs == nil || reqs.Kind != manifest.SequenceNode {
		return false
	}
	for _, r := range reqs.Content {
		vals := r.Get("values")
		if r.String("key") == "kubernetes.io/os" && r.String("operator") == "In" && vals != nil && vals.Kind == manifest.SequenceNode &&
			len(vals.Content) == 1 && vals.Content[0].Value == "windows" {
			return true
		}
	}
	return false
}

// repelsAll: a taint list (Karpenter's or eksctl's list form) with a
// NoSchedule or NoExecute taint.
func repelsAll(taints *manifest.Node) bool {
	if taints == nil || taints.Kind != manifest.SequenceNode {
		return false
	}
	for _, t := range taints.Content {
		if e := t.String("effect"); e == "NoSchedule" || e == "NoExecute" {
			return true
		}
	}
	return false
}
