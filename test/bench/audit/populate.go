package audit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/test/controlplane"
)

// Size is the cluster a benchmark builds.
type Size struct {
	Nodes, Pods, Events int
	PodsPerWorkload     int
}

// Scaled returns the size times f.
func Scaled(f float64) Size {
	return Size{Nodes: int(2000 * f), Pods: int(50000 * f), Events: int(100000 * f), PodsPerWorkload: 50}
}

const ns = "bench"

var since = time.Now().Add(-time.Hour)

func node(i int) *corev1.Node {
	os := "linux"
	if i%3 == 0 {
		os = "windows"
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%04d", os[:3], i), Labels: map[string]string{corev1.LabelOSStable: os, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}}}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("15"), corev1.ResourceMemory: resource.MustParse("60Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", ContainerRuntimeVersion: "containerd://2.0.2", KernelVersion: "6.8.0"}
	if os == "windows" {
		n.Labels[corev1.LabelWindowsBuild] = "10.0.20348"
		n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		n.Status.NodeInfo.KernelVersion = "10.0.20348.2966"
		n.Status.NodeInfo.ContainerRuntimeVersion = "containerd://1.7.22"
		if i%30 == 0 {
			n.Status.NodeInfo.ContainerRuntimeVersion = "containerd://1.6.21"
		}
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now()}}
	return n
}

func podSpec(windows bool) corev1.PodSpec {
	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	lim := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}
	s := corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
		Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/shop/api:1.4.2", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}}}
	if windows {
		s.NodeSelector = map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: "10.0.20348"}
		s.OS = &corev1.PodOS{Name: corev1.Windows}
		s.Tolerations = []corev1.Toleration{{Key: "os", Value: "windows", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}}
		s.Containers[0].Image = "mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022"
	}
	return s
}

// Populate fills the API server: nodes with their status, a Deployment
// and ReplicaSet per PodsPerWorkload pods (a third Windows), the pods
// bound round-robin to nodes of their OS with a Running status for most
// and a failing one for some, and events about the pods written as the
// kubelet writes them.
func Populate(ctx context.Context, cp *controlplane.ControlPlane, c kubernetes.Interface, s Size, logf func(string, ...any)) error {
	start := time.Now()
	var linux, windows []string
	for i := range s.Nodes {
		n := node(i)
		if n.Labels[corev1.LabelOSStable] == "windows" {
			windows = append(windows, n.Name)
		} else {
			linux = append(linux, n.Name)
		}
	}
	if err := inParallel(ctx, 32, s.Nodes, func(i int) error { _, err := cp.CreateNode(ctx, node(i)); return err }); err != nil {
		return err
	}
	logf("%d nodes in %s", s.Nodes, time.Since(start).Round(time.Second))
	if err := cp.CreateNamespace(ctx, ns); err != nil {
		return err
	}
	workloads := (s.Pods + s.PodsPerWorkload - 1) / s.PodsPerWorkload
	rsUIDs := make([]types.UID, workloads)
	if err := inParallel(ctx, 32, workloads, func(w int) error {
		uid, err := workload(ctx, c, w, w%3 == 0)
		rsUIDs[w] = uid
		return err
	}); err != nil {
		return err
	}
	logf("%d Deployments and ReplicaSets in %s", workloads, time.Since(start).Round(time.Second))
	uids := make([]types.UID, s.Pods)
	nodes := make([]string, s.Pods)
	if err := inParallel(ctx, 48, s.Pods, func(i int) error {
		w := i / s.PodsPerWorkload
		win := w%3 == 0
		pool := linux
		if win {
			pool = windows
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%04d-%05d", w, i), Namespace: ns, Labels: map[string]string{"app": fmt.Sprintf("w%04d", w)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("w%04d-6d4cf", w), UID: rsUIDs[w], Controller: ptr.To(true)}}},
			Spec: podSpec(win)}
		p.Spec.NodeName = pool[i%len(pool)]
		created, err := c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		uids[i], nodes[i] = created.UID, p.Spec.NodeName
		created.Status = status(i)
		_, err = c.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	}); err != nil {
		return err
	}
	logf("%d pods with status in %s", s.Pods, time.Since(start).Round(time.Second))
	if err := inParallel(ctx, 48, s.Events, func(i int) error {
		p := i % s.Pods
		e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%05d.%x", p, 0x18a000000+i), Namespace: ns},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: fmt.Sprintf("w%04d-%05d", p/s.PodsPerWorkload, p), UID: uids[p], FieldPath: "spec.containers{app}"},
			Source:         corev1.EventSource{Component: "kubelet", Host: nodes[p]}, Count: 1, Type: corev1.EventTypeNormal,
			FirstTimestamp: metav1.NewTime(since), LastTimestamp: metav1.NewTime(since), ReportingController: "kubelet", ReportingInstance: nodes[p]}
		e.Reason, e.Message = eventText(i, p)
		_, err := c.CoreV1().Events(ns).Create(ctx, e, metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	logf("%d events in %s", s.Events, time.Since(start).Round(time.Second))
	return nil
}

func workload(ctx context.Context, c kubernetes.Interface, w int, win bool) (types.UID, error) {
	name := fmt.Sprintf("w%04d", w)
	labels := map[string]string{"app": name}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec(win)}
	d, err := c.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](50), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	rs, err := c.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-6d4cf", Namespace: ns, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID, Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](50), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return rs.UID, nil
}

// status is Running and Ready for most pods; one in fifty is stuck in
// CrashLoopBackOff, one in a hundred in ImagePullBackOff.
func status(i int) corev1.PodStatus {
	started := metav1.NewTime(since)
	st := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}}
	switch {
	case i%100 == 1:
		st.Phase = corev1.PodPending
		st.Conditions[1].Status = corev1.ConditionFalse
		st.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", Image: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}
	case i%50 == 2:
		st.Conditions[1].Status = corev1.ConditionFalse
		st.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", Image: "app", RestartCount: 7, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: -1073741515, Reason: "Error", StartedAt: started, FinishedAt: started}}}
	}
	return st
}

func eventText(i, p int) (string, string) {
	switch {
	case p%100 == 1:
		return "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": rpc error: code = NotFound desc = failed to pull and unpack image "registry.example.com/shop/api:1.4.2": no match for platform in manifest: not found`
	case p%50 == 2:
		return "BackOff", "Back-off restarting failed container app in pod x"
	case i%2 == 0:
		return "Pulled", `Successfully pulled image "registry.example.com/shop/api:1.4.2" in 1.2s (1.2s including waiting). Image size: 104857600 bytes.`
	}
	return "Started", "Started container app"
}

// inParallel runs fn(0..n-1) on workers goroutines and returns the first
// error.
func inParallel(ctx context.Context, workers, n int, fn func(int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
