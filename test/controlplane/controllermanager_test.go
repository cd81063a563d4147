package controlplane_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/test/controlplane"
)

// TestControllerManager checks that Options.ControllerManager turns a
// Deployment, a DaemonSet and a Job into pods the scheduler binds.
func TestControllerManager(t *testing.T) {
	start := time.Now()
	cp := controlplane.StartT(t, controlplane.Options{ControllerManager: true})
	t.Logf("control plane with kube-controller-manager ready in %s", time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const ns = "winkube-kcm"
	if err := cp.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"n1", "n2"} {
		if _, err := cp.CreateNode(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: "linux"}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
				corev1.ResourcePods: resource.MustParse("110"),
			}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	template := func(app string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyAlways,
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
			},
		}
	}
	selector := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}

	replicas := int32(5)
	if _, err := cp.Client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas, Selector: selector("web"), Template: template("web")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Client.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec:       appsv1.DaemonSetSpec{Selector: selector("agent"), Template: template("agent")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	jobTemplate := template("batch")
	jobTemplate.Spec.RestartPolicy = corev1.RestartPolicyNever
	parallelism := int32(2)
	if _, err := cp.Client.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec:       batchv1.JobSpec{Parallelism: &parallelism, Completions: &parallelism, Template: jobTemplate},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	want := map[string]int{"web": 5, "agent": 2, "batch": 2}
	var last map[string][]string
	for {
		pods, err := cp.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bound := map[string][]string{}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				bound[p.Labels["app"]] = append(bound[p.Labels["app"]], p.Spec.NodeName)
			}
		}
		last = bound
		done := true
		for app, n := range want {
			done = done && len(bound[app]) == n
		}
		if done {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("kube-controller-manager and kube-scheduler did not produce the bound pods %v in time; bound so far: %v", want, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
	agentNodes := slices.Sorted(slices.Values(last["agent"]))
	if fmt.Sprint(agentNodes) != "[n1 n2]" {
		t.Errorf("DaemonSet pods bound to %v, want one on each of [n1 n2]", agentNodes)
	}
	t.Logf("bound pods by workload: %v", last)
	for _, name := range []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		if err := cp.Exited(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := cp.Exited("kubelet"); err == nil {
		t.Error("Exited(kubelet) = nil for a process that was never started")
	}
}
