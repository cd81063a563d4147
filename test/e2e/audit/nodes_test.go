package audit

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/test/controlplane"
)

// past is when the scenario's events and conditions happened: fixed, so
// the golden reports do not change from run to run, and long enough ago
// that ContainerCreating counts as stuck.
var past = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)

// nodeSpec is one node as its kubelet registers it.
type nodeSpec struct {
	name, os        string
	buildLabel      string // node.kubernetes.io/windows-build; "" for none
	kernel          string
	runtime         string
	kubelet         string
	taint           bool
	capacity, alloc string // memory
	notReady        bool
	cordoned        bool
}

// nodes: each Windows node but win-ok breaks one node rule.
var nodes = []nodeSpec{
	{name: "lin-1", os: "linux", kernel: "6.8.0-45-generic", runtime: "containerd://2.0.2", kubelet: "v1.36.3", capacity: "16Gi", alloc: "15Gi"},
	{name: "lin-2", os: "linux", kernel: "6.8.0-45-generic", runtime: "containerd://2.0.2", kubelet: "v1.36.3", capacity: "16Gi", alloc: "15Gi", cordoned: true},
	{name: "win-ok", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-ok-2", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-untainted", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", capacity: "16Gi", alloc: "12Gi"},
	{name: "win-nolabel", os: "windows", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-mislabel", os: "windows", buildLabel: "10.0.17763", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-2019", os: "windows", buildLabel: "10.0.17763", kernel: "10.0.17763.6532", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-lowreserve", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "15Gi"},
	{name: "win-oldctr", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.6.21", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-skew", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.31.4", taint: true, capacity: "16Gi", alloc: "12Gi"},
	{name: "win-notready", os: "windows", buildLabel: "10.0.20348", kernel: "10.0.20348.2966", runtime: "containerd://1.7.22", kubelet: "v1.36.3", taint: true, capacity: "16Gi", alloc: "12Gi", notReady: true},
}

func (n nodeSpec) object() *corev1.Node {
	labels := map[string]string{corev1.LabelOSStable: n.os, "beta.kubernetes.io/os": n.os}
	if n.buildLabel != "" {
		labels[corev1.LabelWindowsBuild] = n.buildLabel
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: labels}, Spec: corev1.NodeSpec{Unschedulable: n.cordoned}}
	if n.taint {
		node.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status",
		LastHeartbeatTime: metav1.NewTime(past), LastTransitionTime: metav1.NewTime(past)}
	if n.notReady {
		ready.Status, ready.Reason = corev1.ConditionFalse, "KubeletNotReady"
		ready.Message = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
	}
	node.Status = corev1.NodeStatus{
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse(n.capacity), corev1.ResourcePods: resource.MustParse("110")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse(n.alloc), corev1.ResourcePods: resource.MustParse("110")},
		Conditions:  []corev1.NodeCondition{ready},
		NodeInfo: corev1.NodeSystemInfo{OperatingSystem: n.os, Architecture: "amd64", KernelVersion: n.kernel,
			ContainerRuntimeVersion: n.runtime, KubeletVersion: n.kubelet, OSImage: n.os},
	}
	return node
}

func createNodes(ctx context.Context, cp *controlplane.ControlPlane) error {
	for _, n := range nodes {
		if _, err := cp.CreateNode(ctx, n.object()); err != nil {
			return err
		}
	}
	return nil
}
