package fidelity

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// Workload is a placement case's pod-creating object: a Deployment,
// DaemonSet, StatefulSet or Job.
type Workload interface {
	metav1.Object
	runtime.Object
}

// kindOf names a workload's kind as winkube reports it.
func kindOf(w Workload) string {
	switch w.(type) {
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.DaemonSet:
		return "DaemonSet"
	case *appsv1.StatefulSet:
		return "StatefulSet"
	case *batchv1.Job:
		return "Job"
	}
	panic(fmt.Sprintf("placement workload of type %T", w))
}

// refOf is the workload as simulate.WorkloadResult names it.
func refOf(w Workload) string {
	return kindOf(w) + "/" + w.GetNamespace() + "/" + w.GetName()
}

// templateOf is the workload's pod template.
func templateOf(w Workload) *corev1.PodTemplateSpec {
	switch x := w.(type) {
	case *appsv1.Deployment:
		return &x.Spec.Template
	case *appsv1.DaemonSet:
		return &x.Spec.Template
	case *appsv1.StatefulSet:
		return &x.Spec.Template
	case *batchv1.Job:
		return &x.Spec.Template
	}
	panic(fmt.Sprintf("placement workload of type %T", w))
}

// replicasOf is how many pods the workload's controller creates, -1 for a
// DaemonSet (one per node it targets, which its status says).
func replicasOf(w Workload) int {
	switch x := w.(type) {
	case *appsv1.Deployment:
		return int(*x.Spec.Replicas)
	case *appsv1.StatefulSet:
		return int(*x.Spec.Replicas)
	case *batchv1.Job:
		return int(*x.Spec.Parallelism)
	}
	return -1
}

// createWorkload creates the workload in the cluster.
func createWorkload(ctx context.Context, client kubernetes.Interface, w Workload) error {
	var err error
	switch x := w.DeepCopyObject().(type) {
	case *appsv1.Deployment:
		_, err = client.AppsV1().Deployments(x.Namespace).Create(ctx, x, metav1.CreateOptions{})
	case *appsv1.DaemonSet:
		_, err = client.AppsV1().DaemonSets(x.Namespace).Create(ctx, x, metav1.CreateOptions{})
	case *appsv1.StatefulSet:
		_, err = client.AppsV1().StatefulSets(x.Namespace).Create(ctx, x, metav1.CreateOptions{})
	case *batchv1.Job:
		_, err = client.BatchV1().Jobs(x.Namespace).Create(ctx, x, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("create %s %s: %w", kindOf(w), w.GetName(), err)
	}
	return nil
}

// podTemplate builds a pod template for an OS ("" for none: no node
// selector and no toleration), labelled app=<name>, asking for cpu and mem
// ("" for no request).
func podTemplate(name, os, cpu, mem string) corev1.PodTemplateSpec {
	requests := corev1.ResourceList{}
	if cpu != "" {
		requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		requests[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelApp: name}},
		Spec: corev1.PodSpec{
			Tolerations: osTolerations(os),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: requests}}},
		},
	}
	if os != "" {
		t.Spec.NodeSelector = map[string]string{corev1.LabelOSStable: os}
	}
	return t
}

// daemonSet builds a DaemonSet labelled app=<name>. With an OS its pods
// select that OS's nodes (and tolerate the Windows taint for Windows);
// without one they select nothing and, with everywhere, tolerate every
// taint (an agent for every node), else run where no taint forbids them
// (the Linux nodes).
func daemonSet(name, os string, everywhere bool, cpu, mem string) *appsv1.DaemonSet {
	t := podTemplate(name, os, cpu, mem)
	if everywhere {
		t.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: PlacementNamespace, Labels: t.Labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: t.Labels},
			Template: t,
		},
	}
}

// statefulSet builds a StatefulSet of replicas pods for an OS with
// podManagementPolicy Parallel: with the default OrderedReady the
// controller creates pod n+1 only once pod n is Ready, which never happens
// without kubelets (only the first pod would exist), while winkube places
// every replica.
func statefulSet(name, os string, replicas int32, cpu, mem string) *appsv1.StatefulSet {
	t := podTemplate(name, os, cpu, mem)
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: PlacementNamespace, Labels: t.Labels},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &replicas,
			ServiceName:         name,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: t.Labels},
			Template:            t,
		},
	}
}

// job builds a Job running parallelism pods at once for an OS (no
// completions: every pod runs until one succeeds, which never happens
// without kubelets).
func job(name, os string, parallelism int32, cpu, mem string) *batchv1.Job {
	t := podTemplate(name, os, cpu, mem)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: PlacementNamespace, Labels: t.Labels},
		Spec:       batchv1.JobSpec{Parallelism: &parallelism, Template: t},
	}
}
