package controlplane_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/test/controlplane"
)

func TestControlPlane(t *testing.T) {
	start := time.Now()
	cp := controlplane.StartT(t, controlplane.Options{})
	t.Logf("control plane ready in %s (bin %s, dir %s)", time.Since(start).Round(time.Millisecond), cp.BinDir, cp.Dir)

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	if _, err := os.Stat(cp.KubeconfigPath); err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	version, err := cp.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	if version.GitVersion != controlplane.KubernetesVersion {
		t.Errorf("server version = %q, want %q", version.GitVersion, controlplane.KubernetesVersion)
	}

	const ns = "winkube-test"
	if err := cp.CreateNamespace(ctx, ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}

	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	linux := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "linux-1", Labels: map[string]string{corev1.LabelOSStable: "linux"}},
		Status:     corev1.NodeStatus{Allocatable: alloc},
	}
	windows := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "windows-1", Labels: map[string]string{corev1.LabelOSStable: "windows"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule},
		}},
		Status: corev1.NodeStatus{Allocatable: alloc},
	}
	for _, n := range []*corev1.Node{linux, windows} {
		got, err := cp.CreateNode(ctx, n)
		if err != nil {
			t.Fatalf("create node: %v", err)
		}
		if got.Status.Allocatable.Cpu().Cmp(resource.MustParse("4")) != 0 {
			t.Fatalf("node %s allocatable = %v", got.Name, got.Status.Allocatable)
		}
	}

	pod := func(name string, nodeSelector map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PodSpec{
				NodeSelector: nodeSelector,
				Containers: []corev1.Container{{
					Name:  "c",
					Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("100m"),
					}},
				}},
			},
		}
	}

	// A Windows pod that does not tolerate the Windows node's taint.
	winPod := pod("win", map[string]string{corev1.LabelOSStable: "windows"})
	if _, err := cp.Client.CoreV1().Pods(ns).Create(ctx, winPod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create windows pod: %v", err)
	}
	node, msg, err := cp.WaitForPodScheduled(ctx, ns, winPod.Name)
	if err != nil {
		t.Fatal(err)
	}
	if node != "" {
		t.Fatalf("windows pod without toleration was bound to %s", node)
	}
	t.Logf("v1.36.3 PodScheduled=False message: %q", msg)
	if !strings.HasPrefix(msg, "0/2 nodes are available:") {
		t.Errorf("scheduler message %q does not start with %q", msg, "0/2 nodes are available:")
	}
	// The FailedScheduling event is recorded asynchronously; log it too.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		events, err := cp.FailedSchedulingEvents(ctx, ns, winPod.Name)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) > 0 {
			for _, e := range events {
				t.Logf("v1.36.3 FailedScheduling event: %q", e)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A Linux pod binds to the Linux node.
	linuxPod := pod("lin", map[string]string{corev1.LabelOSStable: "linux"})
	if _, err := cp.Client.CoreV1().Pods(ns).Create(ctx, linuxPod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create linux pod: %v", err)
	}
	node, msg, err = cp.WaitForPodScheduled(ctx, ns, linuxPod.Name)
	if err != nil {
		t.Fatal(err)
	}
	if node != linux.Name {
		t.Fatalf("linux pod: bound to %q (failure message %q), want %q", node, msg, linux.Name)
	}

	// The windows pod is still pending.
	got, err := cp.Client.CoreV1().Pods(ns).Get(ctx, winPod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "" || got.Status.Phase != corev1.PodPending {
		t.Errorf("windows pod: node %q phase %q, want unbound and Pending", got.Spec.NodeName, got.Status.Phase)
	}

	// API validation: a windows pod may not set securityContext.privileged.
	bad := pod("win-privileged", nil)
	bad.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
	bad.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: new(bool)} // false
	_, err = cp.Client.CoreV1().Pods(ns).Create(ctx, bad, metav1.CreateOptions{})
	if err == nil {
		t.Fatal("API server accepted a windows pod with securityContext.privileged set")
	}
	t.Logf("v1.36.3 validation error: %v", err)
	const want = "spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}
