package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Workload is an object that creates pods, seen through its pod template.
type Workload struct {
	Meta     *metav1.ObjectMeta // the object's own metadata
	Template *metav1.ObjectMeta // the pod template's metadata (Meta for a Pod)
	Spec     *corev1.PodSpec
	SpecPath *field.Path // where Spec sits in the object
	// Replicas is how many pods the workload asks for: replicas,
	// parallelism, 1 for a Pod or CronJob, 0 for a DaemonSet (one per node).
	Replicas int32
}

// Workload returns the object's pod template, or nil when it has none (or
// its typed decoding failed).
func (o *Object) Workload() *Workload {
	spec := field.NewPath("spec")
	tmpl := spec.Child("template", "spec")
	switch t := o.Typed.(type) {
	case *corev1.Pod:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.ObjectMeta, Spec: &t.Spec, SpecPath: spec, Replicas: 1}
	case *corev1.ReplicationController:
		if t.Spec.Template == nil {
			return nil
		}
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: replicas(t.Spec.Replicas)}
	case *corev1.PodTemplate:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Template.ObjectMeta, Spec: &t.Template.Spec, SpecPath: field.NewPath("template", "spec"), Replicas: 0}
	case *appsv1.Deployment:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: replicas(t.Spec.Replicas)}
	case *appsv1.StatefulSet:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: replicas(t.Spec.Replicas)}
	case *appsv1.ReplicaSet:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: replicas(t.Spec.Replicas)}
	case *appsv1.DaemonSet:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: 0}
	case *batchv1.Job:
		return &Workload{Meta: &t.ObjectMeta, Template: &t.Spec.Template.ObjectMeta, Spec: &t.Spec.Template.Spec, SpecPath: tmpl, Replicas: replicas(t.Spec.Parallelism)}
	case *batchv1.CronJob:
		js := t.Spec.JobTemplate.Spec
		return &Workload{Meta: &t.ObjectMeta, Template: &js.Template.ObjectMeta, Spec: &t.Spec.JobTemplate.Spec.Template.Spec,
			SpecPath: spec.Child("jobTemplate", "spec", "template", "spec"), Replicas: replicas(js.Parallelism)}
	}
	if c := o.custom; c != nil {
		// The findings' paths say which part of the custom resource was read.
		return &Workload{Meta: &c.meta, Template: &c.template.ObjectMeta, Spec: &c.template.Spec, SpecPath: c.specPath, Replicas: 1}
	}
	return nil
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// WorkloadKinds are the kinds that create pods, at the API versions the
// API server serves them today: the one list the webhook checks at
// admission and simulate creates pods from. (A PodTemplate has a pod
// template but creates nothing.)
var WorkloadKinds = []metav1.GroupVersionKind{
	{Group: "", Version: "v1", Kind: "Pod"},
	{Group: "", Version: "v1", Kind: "ReplicationController"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Group: "batch", Version: "v1", Kind: "Job"},
	{Group: "batch", Version: "v1", Kind: "CronJob"},
}

// CreatesPods reports whether objects of the kind (any group or version)
// create pods.
func CreatesPods(kind string) bool {
	for _, k := range WorkloadKinds {
		if k.Kind == kind {
			return true
		}
	}
	return false
}
