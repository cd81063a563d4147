package simulate

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/manifest"
)

// defaultSelector is helper.DefaultSelector for the workload's pods: the
// merged selectors of the input's Services that select them, and of their
// controller when it is a ReplicationController, ReplicaSet (a
// Deployment's included) or StatefulSet. own says the controller's
// selector includes a pod-template-hash, so only the workload's own pods
// match.
func defaultSelector(wl *workload, pod *corev1.Pod, services serviceIndex) (sel labels.Selector, own bool) {
	// Every Service merged selects the pod, so its selector is a subset of
	// the pod's labels: the merge is their union, whatever the order.
	set := labels.Set{}
	byLabel := services[wl.ns]
	for k, v := range pod.Labels {
		for _, svc := range byLabel[indexKey(k, v)] {
			if setSelects(svc.Spec.Selector, pod.Labels) {
				for sk, sv := range svc.Spec.Selector {
					set[sk] = sv
				}
			}
		}
	}
	sel = set.AsSelector()
	var ls *metav1.LabelSelector
	switch o := wl.obj.Typed.(type) {
	case *corev1.ReplicationController:
		if len(o.Spec.Selector) > 0 {
			sel = labels.Merge(set, o.Spec.Selector).AsSelector()
		} else {
			sel = labels.Merge(set, pod.Labels).AsSelector() // defaulted from the template's labels
		}
		return sel, false
	case *appsv1.ReplicaSet:
		ls = o.Spec.Selector
	case *appsv1.Deployment:
		ls, own = o.Spec.Selector, true
	case *appsv1.StatefulSet:
		ls = o.Spec.Selector
	default:
		return sel, false
	}
	if other, err := metav1.LabelSelectorAsSelector(ls); err == nil && ls != nil {
		if r, ok := other.Requirements(); ok {
			sel = sel.Add(r...)
		}
	}
	return sel, own
}

// setSelects is labels.SelectorFromSet(sel).Matches(labels.Set(ls)) for a
// non-empty sel, without building the selector: every key of sel has its
// value in ls.
func setSelects(sel, ls map[string]string) bool {
	for k, v := range sel {
		if got, ok := ls[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// serviceIndex holds the Services with a selector by namespace
// ("default" for none) and then by the first key of their selector, in
// sorted order, with its value: a Service can select a pod only if the
// pod has that label.
type serviceIndex map[string]map[string][]*corev1.Service

func indexKey(k, v string) string { return k + "=" + v }

// servicesOf indexes the Services among the objects, so that a workload
// meets only those that may select its pods.
func servicesOf(objs []*manifest.Object) serviceIndex {
	out := serviceIndex{}
	for _, o := range objs {
		svc, ok := o.Typed.(*corev1.Service)
		if !ok || len(svc.Spec.Selector) == 0 {
			continue
		}
		ns := svc.Namespace
		if ns == "" {
			ns = "default"
		}
		if out[ns] == nil {
			out[ns] = map[string][]*corev1.Service{}
		}
		k := slices.Min(slices.Collect(maps.Keys(svc.Spec.Selector)))
		key := indexKey(k, svc.Spec.Selector[k])
		out[ns][key] = append(out[ns][key], svc)
	}
	return out
}
