package simulate

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// term is a pod (anti-)affinity term ready to match pods.
type term struct {
	selector    labels.Selector
	namespaces  map[string]bool // nil: every namespace
	topologyKey string
}

func (t term) matches(ns string, l labels.Set) bool {
	return (t.namespaces == nil || t.namespaces[ns]) && t.selector.Matches(l)
}

// interPod holds a pod's required inter-pod affinity and anti-affinity.
type interPod struct {
	affinity, anti []term
	// nsSelector notes a namespaceSelector, which needs namespace labels
	// winkube does not have: such terms match every namespace.
	nsSelector bool
}

func newInterPod(pod *corev1.Pod) *interPod {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	ip := &interPod{}
	if a.PodAffinity != nil {
		ip.affinity = ip.terms(pod, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		ip.anti = ip.terms(pod, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if len(ip.affinity) == 0 && len(ip.anti) == 0 {
		return nil
	}
	return ip
}

// terms converts API terms. matchLabelKeys and mismatchLabelKeys are
// merged into the selector with the pod's own label values, as the API
// server does on create.
func (ip *interPod) terms(pod *corev1.Pod, in []corev1.PodAffinityTerm) []term {
	var out []term
	for _, t := range in {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil || t.LabelSelector == nil {
			sel = labels.Nothing()
		}
		sel = withLabelKeys(sel, pod.Labels, t.MatchLabelKeys, selection.In)
		sel = withLabelKeys(sel, pod.Labels, t.MismatchLabelKeys, selection.NotIn)
		tm := term{selector: sel, topologyKey: t.TopologyKey}
		switch {
		case t.NamespaceSelector != nil:
			ip.nsSelector = ip.nsSelector || len(t.NamespaceSelector.MatchLabels)+len(t.NamespaceSelector.MatchExpressions) > 0
		case len(t.Namespaces) > 0:
			tm.namespaces = map[string]bool{}
			for _, ns := range t.Namespaces {
				tm.namespaces[ns] = true
			}
		default:
			tm.namespaces = map[string]bool{pod.Namespace: true}
		}
		if t.NamespaceSelector != nil && len(t.Namespaces) > 0 {
			// namespaces and namespaceSelector are ORed; without namespace
			// labels the selector is taken to match all.
			tm.namespaces = nil
		}
		out = append(out, tm)
	}
	return out
}

// withLabelKeys adds to sel, for each key the pod has a label for, the
// requirement that the key be (In) or not be (NotIn) the pod's value.
func withLabelKeys(sel labels.Selector, podLabels map[string]string, keys []string, op selection.Operator) labels.Selector {
	for _, k := range keys {
		if v, ok := podLabels[k]; ok {
			if r, err := labels.NewRequirement(k, op, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// podPrefs is what InterPodAffinity scores of a pod: its preferred
// affinity and anti-affinity terms with their weights, and its required
// affinity terms (which attract later matching pods with the profile's
// hardPodAffinityWeight).
type podPrefs struct {
	aff, anti []weightedTerm
	required  []term
}

type weightedTerm struct {
	term
	weight int64
}

// newPodPrefs reads the pod's terms; nil when it has none.
func newPodPrefs(pod *corev1.Pod) *podPrefs {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	pp := &podPrefs{}
	var ip interPod
	weighted := func(in []corev1.WeightedPodAffinityTerm) []weightedTerm {
		var out []weightedTerm
		for _, w := range in {
			for _, t := range ip.terms(pod, []corev1.PodAffinityTerm{w.PodAffinityTerm}) {
				out = append(out, weightedTerm{term: t, weight: int64(w.Weight)})
			}
		}
		return out
	}
	if a.PodAffinity != nil {
		pp.aff = weighted(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
		pp.required = ip.terms(pod, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		pp.anti = weighted(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if len(pp.aff)+len(pp.anti)+len(pp.required) == 0 {
		return nil // required anti-affinity alone scores nothing
	}
	return pp
}

// hasPreferred reports whether the incoming pod has preferred terms.
func (pp *podPrefs) hasPreferred() bool { return pp != nil && len(pp.aff)+len(pp.anti) > 0 }

// attracts reports whether the pod, once bound, scores other pods:
// through its required affinity or its preferred terms.
func (pp *podPrefs) attracts() bool {
	return pp != nil && len(pp.aff)+len(pp.anti)+len(pp.required) > 0
}
