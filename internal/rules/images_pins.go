package rules

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// buildKeys are the node labels whose value names a Windows build: the
// kubelet's, and the managed platforms' OS labels.
var buildKeys = []string{cluster.LabelWindowsBuild, winsupport.LabelAKSOSSKU, winsupport.LabelGKEWindowsVersion}

// pinBuild is the build a pin's value names.
func pinBuild(p *rule.Pass, key, value string) (string, bool) {
	if key == cluster.LabelWindowsBuild {
		return value, true
	}
	return p.Model.CloudLabelBuild(key, value)
}

// buildPin is a Windows build a workload's constraints name, and where.
type buildPin struct {
	Build string
	Path  *field.Path
	// Label and Value are the pin as written: node.kubernetes.io/windows-build
	// 10.0.17763, or a platform's label (kubernetes.azure.com/os-sku
	// Windows2019).
	Label, Value string
}

// pinnedBuilds returns the builds named by node.kubernetes.io/windows-build
// in the nodeSelector (after the RuntimeClass merge) and in the In
// expressions of the required node affinity.
func pinnedBuilds(p *rule.Pass) []buildPin {
	var out []buildPin
	sp := p.Workload.SpecPath
	for _, key := range buildKeys {
		v, ok := p.Target.NodeSelector[key]
		if !ok {
			continue
		}
		path := sp.Child("nodeSelector").Key(key)
		if own, mine := p.Workload.Spec.NodeSelector[key]; !mine || own != v {
			path = sp.Child("runtimeClassName")
		}
		if b, ok := pinBuild(p, key, v); ok {
			out = append(out, buildPin{b, path, key, v})
		}
	}
	a := p.Workload.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	terms := sp.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for j, e := range t.MatchExpressions {
			if !slices.Contains(buildKeys, e.Key) || e.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			for k, v := range e.Values {
				if b, ok := pinBuild(p, e.Key, v); ok {
					out = append(out, buildPin{b, terms.Index(i).Child("matchExpressions").Index(j).Child("values").Index(k), e.Key, v})
				}
			}
		}
	}
	return out
}
