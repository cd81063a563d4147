package plan

import (
	"encoding/json"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/winkube/winkube/internal/manifest"
)

// budget is a PodDisruptionBudget and the workloads it covers.
type budget struct {
	name      string // namespace/name
	pdb       *policyv1.PodDisruptionBudget
	workloads []string
	expected  int // replicas of the covered workloads
	healthy   int // ready pods now
}

// desired is the disruption controller's desiredHealthy
// (kubernetes/kubernetes v1.36.3 pkg/controller/disruption/disruption.go,
// getExpectedPodCount): minAvailable, or expected minus maxUnavailable,
// percentages of expected rounded up.
func (b *budget) desired() int {
	scaled := func(v *intstr.IntOrString) int {
		if v.Type == intstr.Int {
			return v.IntValue()
		}
		p, err := intstr.GetScaledValueFromIntOrPercent(v, b.expected, true)
		if err != nil {
			return 0
		}
		return p
	}
	switch s := b.pdb.Spec; {
	case s.MinAvailable != nil:
		return scaled(s.MinAvailable)
	case s.MaxUnavailable != nil:
		return max(b.expected-scaled(s.MaxUnavailable), 0)
	}
	return 0
}

// allowed is status.disruptionsAllowed: currentHealthy - desiredHealthy,
// never below zero.
func (b *budget) allowed() int { return max(b.healthy-b.desired(), 0) }

// budgets reads the PodDisruptionBudgets among objs and the workloads each
// selects (by pod template labels, in the same namespace).
func budgets(objs []*manifest.Object, replicas map[string]int) map[string]*budget {
	type tmpl struct {
		ref, ns string
		labels  labels.Set
	}
	var tmpls []tmpl
	var pdbs []*policyv1.PodDisruptionBudget
	for _, o := range objs {
		if o.Kind == "PodDisruptionBudget" && o.Root != nil {
			var p policyv1.PodDisruptionBudget
			if json.Unmarshal(o.Root.AppendJSON(nil), &p) == nil {
				if p.Namespace == "" {
					p.Namespace = "default"
				}
				pdbs = append(pdbs, &p)
			}
			continue
		}
		w := o.Workload()
		if w == nil || w.Template == nil {
			continue
		}
		ns := nsOf(o)
		tmpls = append(tmpls, tmpl{o.Kind + "/" + ns + "/" + o.Name, ns, w.Template.Labels})
	}
	out := map[string]*budget{} // by workload ref
	for _, p := range pdbs {
		if p.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		b := &budget{name: p.Namespace + "/" + p.Name, pdb: p}
		for _, t := range tmpls {
			if t.ns == p.Namespace && sel.Matches(t.labels) {
				b.workloads = append(b.workloads, t.ref)
				b.expected += replicas[t.ref]
				if _, taken := out[t.ref]; !taken {
					out[t.ref] = b // the API server refuses an eviction a second budget also covers; the first is kept
				}
			}
		}
	}
	return out
}

func nsOf(o *manifest.Object) string {
	if o.Namespace == "" {
		return "default"
	}
	return o.Namespace
}

// selectorText is a budget's selector as kubectl's -l takes it.
func selectorText(p *policyv1.PodDisruptionBudget) string {
	if p == nil || p.Spec.Selector == nil {
		return ""
	}
	return strings.ReplaceAll(metav1.FormatLabelSelector(p.Spec.Selector), " ", "")
}
