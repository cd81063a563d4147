package rules

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
)

// LegacyNodeLabel: the deprecated beta OS label, and Windows build labels
// that no kubelet sets.
var LegacyNodeLabel = &rule.Rule{
	ID:       "legacy-node-label",
	Title:    "Workload selects nodes by a deprecated or hand-made OS label",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports nodeSelector keys and required node affinity keys that select the OS or the Windows build by a label Kubernetes does not maintain: beta.kubernetes.io/os and beta.kubernetes.io/arch (deprecated since 1.14; the API server warns `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use \"kubernetes.io/os\" instead`), and hand-made build labels (windows-build, os-version, a key ending in windowsversion, or any key other than node.kubernetes.io/windows-build whose value is a Windows build such as 1809, ltsc2019 or 10.0.17763), which no kubelet sets. Labels a managed platform sets on its Windows nodes (GKE's cloud.google.com/gke-windows-os-version, AKS's kubernetes.azure.com/os-sku) are not reported. A hand-made label that the cluster's nodes carry (a cluster file or kubectl get nodes) is not reported.",
		Why:  "The kubelet sets kubernetes.io/os and node.kubernetes.io/windows-build. The beta OS label is still copied for compatibility but is deprecated; a hand-made build label matches only nodes someone labelled by hand, so on a new or autoscaled node the pods stay Pending with `node(s) didn't match Pod's node affinity/selector`.",
		Fix:  "Select with kubernetes.io/os and node.kubernetes.io/windows-build (the full 10.0.NNNNN value).",
		Sources: []string{
			"k8s.io/api v0.36 core/v1 well_known_labels.go (LegacyLabelOS, kept for backward compatibility)",
			"k8s.io/kubernetes v1.36.3 pkg/api/pod/warnings.go (deprecated node labels)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (node.kubernetes.io/windows-build is set by the kubelet)",
		},
	},
	Workload: func(p *rule.Pass) {
		eachSelectorKey(p, func(path *field.Path, key string, values []string) { legacyLabel(p, path, key, values) })
	},
}

// eachSelectorKey calls fn with each node label key the workload selects
// by: its nodeSelector's keys (with their value) and the keys of its
// required node affinity's match expressions (with theirs), each at its
// field path.
func eachSelectorKey(p *rule.Pass, fn func(path *field.Path, key string, values []string)) {
	sel := p.Workload.SpecPath.Child("nodeSelector")
	for k, v := range p.Workload.Spec.NodeSelector {
		fn(sel.Key(k), k, []string{v})
	}
	a := p.Workload.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return
	}
	terms := p.Workload.SpecPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for j, e := range t.MatchExpressions {
			fn(terms.Index(i).Child("matchExpressions").Index(j).Child("key"), e.Key, e.Values)
		}
	}
}

// platformLabels are build labels a managed platform sets on every Windows
// node it provisions: pinning to them is as safe as to the kubelet's own.
var platformLabels = map[string]bool{
	// GKE labels Windows Server nodes with their LTSC version (2019, 2022):
	// cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows
	// and the gmsa sample of GoogleCloudPlatform/kubernetes-engine-samples.
	"cloud.google.com/gke-windows-os-version": true,
	// AKS labels every node with its OS SKU (Windows2019, Windows2022, ...).
	"kubernetes.azure.com/os-sku": true,
}

var (
	windowsBuildValueRE = regexp.MustCompile(`^(1709|1803|1809|1903|1909|2004|20h2|ltsc20\d\d|10\.0\.\d{5}(\.\d+)?)$`)
	buildKeyRE          = regexp.MustCompile(`(?i)(windows-?build|windows-?version|os-?version)$`)
)

func legacyLabel(p *rule.Pass, path *field.Path, key string, values []string) {
	switch key {
	case cluster.LabelOSBeta, "beta.kubernetes.io/arch":
		ga := "kubernetes.io/" + strings.TrimPrefix(key, "beta.kubernetes.io/")
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf("%s: deprecated since v1.14; use %q instead", path, ga),
			Hint:    "the kubelet maintains " + ga + "; the beta label is kept only for compatibility"})
		return
	case cluster.LabelWindowsBuild:
		return
	}
	if platformLabels[key] {
		return
	}
	build := buildKeyRE.MatchString(key)
	for _, v := range values {
		build = build || windowsBuildValueRE.MatchString(strings.ToLower(v))
	}
	if !build || nodesCarry(p.Cluster, key) {
		return
	}
	p.Report(rule.Finding{Path: rule.Path(path),
		Message: fmt.Sprintf("node label %q is not set by any kubelet: only nodes labelled by hand match, so pods on new nodes stay Pending", key),
		Hint:    "select the build with node.kubernetes.io/windows-build (10.0.17763, 10.0.20348, 10.0.26100), which every Windows kubelet sets"})
}

// nodesCarry reports whether a pool of the cluster labels its nodes key.
func nodesCarry(c *cluster.Cluster, key string) bool {
	for _, pool := range c.Pools {
		if _, ok := pool.Labels[key]; ok {
			return true
		}
	}
	return false
}
