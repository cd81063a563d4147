package rules

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
)

// buildPin is a Windows build a workload's constraints name, and where.
type buildPin struct {
	Build string
	Path  *field.Path
}

// pinnedBuilds returns the builds named by node.kubernetes.io/windows-build
// in the nodeSelector (after the RuntimeClass merge) and in the In
// expressions of the required node affinity.
func pinnedBuilds(p *rule.Pass) []buildPin {
	var out []buildPin
	sp := p.Workload.SpecPath
	if v, ok := p.Target.NodeSelector[cluster.LabelWindowsBuild]; ok {
		path := sp.Child("nodeSelector").Key(cluster.LabelWindowsBuild)
		if own, mine := p.Workload.Spec.NodeSelector[cluster.LabelWindowsBuild]; !mine || own != v {
			path = sp.Child("runtimeClassName")
		}
		out = append(out, buildPin{v, path})
	}
	a := p.Workload.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	terms := sp.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for j, e := range t.MatchExpressions {
			if e.Key != cluster.LabelWindowsBuild || e.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			for k, v := range e.Values {
				out = append(out, buildPin{v, terms.Index(i).Child("matchExpressions").Index(j).Child("values").Index(k)})
			}
		}
	}
	return out
}
