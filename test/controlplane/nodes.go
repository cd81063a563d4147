package controlplane

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// CreateNamespace creates a namespace; an existing one is not an error.
func (cp *ControlPlane) CreateNamespace(ctx context.Context, name string) error {
	_, err := cp.Client.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// CreateNode creates a fake Node the scheduler can use, as a kubelet would
// register it: the Node object, then its status through the status
// subresource. node is not modified. Defaults applied to the copy:
//   - labels kubernetes.io/hostname=<name> and kubernetes.io/arch=amd64 if
//     absent (kubernetes.io/os is left to the caller);
//   - Status.Allocatable and Status.Capacity copied from each other when only
//     one is set;
//   - a Ready=True condition if there is no Ready condition;
//   - Status.NodeInfo.OperatingSystem/Architecture from the os/arch labels.
func (cp *ControlPlane) CreateNode(ctx context.Context, node *corev1.Node) (*corev1.Node, error) {
	n := node.DeepCopy()
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	if _, ok := n.Labels[corev1.LabelHostname]; !ok {
		n.Labels[corev1.LabelHostname] = n.Name
	}
	if _, ok := n.Labels[corev1.LabelArchStable]; !ok {
		n.Labels[corev1.LabelArchStable] = "amd64"
	}
	status := n.Status.DeepCopy()
	if len(status.Allocatable) == 0 {
		status.Allocatable = status.Capacity.DeepCopy()
	}
	if len(status.Capacity) == 0 {
		status.Capacity = status.Allocatable.DeepCopy()
	}
	hasReady := false
	for _, c := range status.Conditions {
		hasReady = hasReady || c.Type == corev1.NodeReady
	}
	if !hasReady {
		now := metav1.Now()
		status.Conditions = append(status.Conditions, corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", Message: "kubelet is posting ready status (fake node)",
			LastHeartbeatTime: now, LastTransitionTime: now,
		})
	}
	if status.NodeInfo.OperatingSystem == "" {
		status.NodeInfo.OperatingSystem = n.Labels[corev1.LabelOSStable]
	}
	if status.NodeInfo.Architecture == "" {
		status.NodeInfo.Architecture = n.Labels[corev1.LabelArchStable]
	}

	created, err := cp.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create node %s: %w", n.Name, err)
	}
	created.Status = *status
	updated, err := cp.Client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("set status of node %s: %w", n.Name, err)
	}
	return updated, nil
}

// WaitForPodScheduled waits until the pod is bound (returning the node name)
// or the scheduler has reported it unschedulable (returning the message of
// the PodScheduled=False condition, or else of a FailedScheduling event,
// e.g. "0/2 nodes are available: ..."; for a pod with scheduling gates it is
// "Scheduling is blocked due to non-empty scheduling gates"). The first
// outcome seen wins: a pod reported unschedulable may still be bound later.
// It returns an error if ctx ends first or the pod cannot be read.
func (cp *ControlPlane) WaitForPodScheduled(ctx context.Context, ns, name string) (node, failedMsg string, err error) {
	selector := fields.Set{
		"involvedObject.kind": "Pod",
		"involvedObject.name": name,
		"reason":              "FailedScheduling",
	}.AsSelector().String()
	last := "pod not seen yet"
	for {
		pod, err := cp.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err != nil && !apierrors.IsNotFound(err):
			return "", "", fmt.Errorf("get pod %s/%s: %w", ns, name, err)
		case err == nil:
			if pod.Spec.NodeName != "" {
				return pod.Spec.NodeName, "", nil
			}
			last = fmt.Sprintf("pending, conditions %v", pod.Status.Conditions)
			for _, c := range pod.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
					return "", c.Message, nil
				}
			}
			events, err := cp.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: selector})
			if err != nil {
				return "", "", fmt.Errorf("list events of pod %s/%s: %w", ns, name, err)
			}
			for _, e := range events.Items {
				if e.InvolvedObject.UID == pod.UID && e.Message != "" {
					return "", e.Message, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", "", fmt.Errorf("waiting for pod %s/%s to be scheduled or fail scheduling: %w (last: %s)",
				ns, name, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// FailedSchedulingEvents returns the messages of the FailedScheduling events
// recorded for a pod (all of them, in the order the API server lists them).
func (cp *ControlPlane) FailedSchedulingEvents(ctx context.Context, ns, name string) ([]string, error) {
	events, err := cp.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": "Pod",
		"involvedObject.name": name,
		"reason":              "FailedScheduling",
	}.AsSelector().String()})
	if err != nil {
		return nil, err
	}
	var msgs []string
	for _, e := range events.Items {
		msgs = append(msgs, e.Message)
	}
	return msgs, nil
}
