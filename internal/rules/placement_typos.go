package rules

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// osLabelKeys are the node labels that name a node's OS, architecture or
// build: the kubelet's and the managed platforms'.
var osLabelKeys = []string{
	cluster.LabelOS, cluster.LabelOSBeta, cluster.LabelWindowsBuild,
	"kubernetes.io/arch", "beta.kubernetes.io/arch",
	winsupport.LabelAKSOSSKU, winsupport.LabelGKEWindowsVersion, "cloud.google.com/gke-os-distribution",
}

// reservedOSName matches a label name under the kubelet's prefixes that
// speaks of the OS: os-sku, ostype, os-type, operatingsystem.
var reservedOSName = regexp.MustCompile(`(?i)^(kubernetes\.io|node\.kubernetes\.io|beta\.kubernetes\.io)/(os[-_]?(sku|type|name|family)|ostype|operating-?system|windows)$`)

// OSLabelTypo: a selector on an OS-like label no node carries.
var OSLabelTypo = &rule.Rule{
	ID:       "os-label-typo",
	Title:    "Selector on an OS-like node label that no kubelet or platform sets",
	Severity: rule.Error,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports nodeSelector keys and required node affinity keys that look like an OS or OS SKU label but are not one: a key within two edits of a label the kubelet or a managed platform sets (kubernetes.io/os, node.kubernetes.io/windows-build, kubernetes.azure.com/os-sku, cloud.google.com/gke-windows-os-version, ...), or an invented OS name under the kubelet's prefixes (kubernetes.io/os-sku, node.kubernetes.io/os-type). It names the likely intended key. Hand-made build labels are legacy-node-label's; a key the cluster's nodes carry is not reported.",
		Why:  "No node carries the label, so a nodeSelector on it, or an In expression, matches no node: the pods stay Pending with `node(s) didn't match Pod's node affinity/selector`. A NotIn or DoesNotExist expression on it matches every node and pins nothing.",
		Fix:  "Use the label the kubelet sets (kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.20348) or your platform's (AKS kubernetes.azure.com/os-sku: Windows2022).",
		Sources: []string{
			"kubernetes.io/docs/reference/labels-annotations-taints/ (kubernetes.io/os, node.kubernetes.io/windows-build)",
			"learn.microsoft.com/azure/aks/use-labels (kubernetes.azure.com/os-sku)",
			"cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows (cloud.google.com/gke-windows-os-version)",
		},
	},
	Workload: func(p *rule.Pass) {
		eachSelectorKey(p, func(path *field.Path, key string, _ []string) { osLabelTypo(p, path, key) })
	},
}

func osLabelTypo(p *rule.Pass, path *field.Path, key string) {
	for _, k := range osLabelKeys {
		if key == k {
			return
		}
	}
	if buildKeyRE.MatchString(key) || nodesCarry(p.Cluster, key) {
		return // legacy-node-label's, or the cluster really has it
	}
	want := likelyOSKey(key)
	if want == "" {
		return
	}
	p.Report(rule.Finding{Path: rule.Path(path),
		Message: fmt.Sprintf("no kubelet or platform sets node label %q: the selector matches no node; did you mean %q?", key, want),
		Hint:    "a nodeSelector on a label no node carries keeps the pods Pending with node(s) didn't match Pod's node affinity/selector"})
}

// likelyOSKey is the OS label key meant, "" when key does not look like one.
func likelyOSKey(key string) string {
	best, dist := "", 3
	for _, k := range osLabelKeys {
		if d := manifest.EditDistance(strings.ToLower(key), k); d < dist {
			best, dist = k, d
		}
	}
	if best != "" {
		return best
	}
	if !reservedOSName.MatchString(key) {
		return ""
	}
	if strings.Contains(strings.ToLower(key), "sku") {
		return winsupport.LabelAKSOSSKU
	}
	return cluster.LabelOS
}
