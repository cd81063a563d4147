package simulate

import (
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
func defaultSelector(wl *workload, pod *corev1.Pod, services []*corev1.Service) (sel labels.Selector, own bool) {
	set := labels.Set{}
	for _, svc := range services {
		ns := svc.Namespace
		if ns == "" {
			ns = "default"
		}
		if ns != wl.ns || len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			set = labels.Merge(set, svc.Spec.Selector)
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

// servicesOf lists the Services among the objects.
func servicesOf(objs []*manifest.Object) []*corev1.Service {
	var out []*corev1.Service
	for _, o := range objs {
		if svc, ok := o.Typed.(*corev1.Service); ok {
			out = append(out, svc)
		}
	}
	return out
}
