package audit

import (
	"context"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/test/controlplane"
)

// build creates the scenario: nodes, a RuntimeClass, workloads, the
// pods of cases() with their statuses and events, a stray Linux pod on a
// Windows node, and an event about an earlier pod of the same name.
func build(ctx context.Context, cp *controlplane.ControlPlane) error {
	if err := cp.CreateNamespace(ctx, ns); err != nil {
		return err
	}
	if err := createNodes(ctx, cp); err != nil {
		return err
	}
	if err := createWorkloads(ctx, cp); err != nil {
		return err
	}
	all := cases()
	names := slices.Sorted(maps.Keys(all))
	for _, n := range names {
		c := all[n]
		if _, err := createPod(ctx, cp, c.pod, c.status, c.events); err != nil {
			return fmt.Errorf("pod %s: %w", n, err)
		}
	}
	stray := linuxPod("stray-linux", "win-untainted", "nginx:1.27")
	if _, err := createPod(ctx, cp, stray, corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{scheduled(0), {Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t(1)}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t(1)}}}}}, nil); err != nil {
		return err
	}
	// An event about an earlier pod named "taint": joined by name it
	// would blame the CNI; doctor joins by UID.
	earlier := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "taint", Namespace: ns, UID: types.UID("0badc0de-0000-4000-8000-000000000001")}}
	return writeEvent(ctx, cp, earlier, "win-ok", 0, event{typ: "Warning", reason: "FailedCreatePodSandBox", message: sandboxPfx + `failed to setup network for sandbox "1": plugin type="calico" failed (add): hnsCall failed in Win32: The object already exists. (0x1392)`})
}

func createWorkloads(ctx context.Context, cp *controlplane.ControlPlane) error {
	c := cp.Client
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2022"}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: "10.0.20348"}, Tolerations: winToleration}}
	if _, err := c.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		return err
	}
	web := deployment("web", winPod("x", "", servercore2022).Spec)
	web.Spec.Template.Spec.Tolerations = nil // missing-windows-toleration, reported at the Deployment only
	legacy := deployment("legacy", corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}})
	iisSpec := winPod("x", "", servercore2022).Spec
	iisSpec.NodeSelector, iisSpec.Tolerations, iisSpec.RuntimeClassName = nil, nil, ptr.To("windows-2022")
	iis := deployment("iis", iisSpec)
	for _, d := range []*appsv1.Deployment{web, legacy, iis} {
		if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	got, err := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		return err
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f7c", Namespace: ns, Labels: map[string]string{"app": "web"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: got.UID, Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Selector: got.Spec.Selector, Template: got.Spec.Template}}
	rs, err = c.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f7c-x2k8q", Namespace: ns, Labels: map[string]string{"app": "web"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}},
		Spec: *rs.Spec.Template.Spec.DeepCopy()}
	_, err = createPod(ctx, cp, pod, unschedulable(schedTaint), []event{{newAPI: true, typ: "Warning", reason: "FailedScheduling", message: schedTaint, count: 2}})
	return err
}

func deployment(name string, spec corev1.PodSpec) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
}

// createPod creates the pod, writes its status through the status
// subresource as the kubelet does, and its events.
func createPod(ctx context.Context, cp *controlplane.ControlPlane, p *corev1.Pod, st corev1.PodStatus, evs []event) (*corev1.Pod, error) {
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Image = p.Spec.Containers[0].Image
	}
	created, err := cp.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	created.Status = st
	updated, err := cp.Client.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	for i, e := range evs {
		if err := writeEvent(ctx, cp, updated, p.Spec.NodeName, i, e); err != nil {
			return nil, err
		}
	}
	return updated, nil
}

// writeEvent writes an event as its reporter does: the kubelet through
// core/v1 (source, count, first and last timestamps), kube-scheduler
// through events.k8s.io/v1 (reporting controller, eventTime, series).
func writeEvent(ctx context.Context, cp *controlplane.ControlPlane, p *corev1.Pod, node string, i int, e event) error {
	ref := corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion, FieldPath: e.fieldPath}
	name := fmt.Sprintf("%s.%x%s", p.Name, 0x180000000+i*7919, string(p.UID)[:8])
	count := max(e.count, 1)
	first, last := t(e.at), t(e.at+int(count)-1)
	if e.newAPI {
		ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace}, EventTime: metav1.NewMicroTime(first.Time),
			ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-control-plane", Action: "Scheduling",
			Reason: e.reason, Regarding: ref, Note: e.message, Type: e.typ}
		if count > 1 {
			ev.Series = &eventsv1.EventSeries{Count: count, LastObservedTime: metav1.NewMicroTime(last.Time)}
		}
		_, err := cp.Client.EventsV1().Events(p.Namespace).Create(ctx, ev, metav1.CreateOptions{})
		return err
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace}, InvolvedObject: ref, Reason: e.reason, Message: e.message,
		Source: corev1.EventSource{Component: "kubelet", Host: node}, FirstTimestamp: first, LastTimestamp: last, Count: count, Type: e.typ,
		ReportingController: "kubelet", ReportingInstance: node}
	_, err := cp.Client.CoreV1().Events(p.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	return err
}
