package doctor

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/live"
)

// DefaultCreatingAfter is how long a pod may show ContainerCreating
// before doctor looks into it: a first pull of a Windows base image takes
// minutes.
const DefaultCreatingAfter = 5 * time.Minute

// fatalEarly are the causes a pod does not outgrow: a Warning event that
// shows one makes a pod in ContainerCreating examined at once, however
// young (the sandbox of a pod whose pause image does not match the host's
// build fails the same way on every retry, minutes before
// DefaultCreatingAfter).
func fatalEarly() []*Cause {
	return []*Cause{PauseImageBuildMismatch, ImageBuildMismatch, LinuxImageOnWindows, WindowsImageOnLinux, CNINetworkFailure, HostProcessIdentity}
}

// creatingYoung reports whether p is in ContainerCreating (or has no
// container status yet) for less than creatingAfter: not yet examined,
// unless its events show a cause it will not outgrow.
func creatingYoung(p *corev1.Pod, now time.Time, creatingAfter time.Duration) bool {
	if p.DeletionTimestamp != nil || p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending {
		return false
	}
	if now.Sub(since(p)) >= creatingAfter {
		return false
	}
	statuses := allStatuses(p)
	if len(statuses) == 0 {
		return true
	}
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && (w.Reason == "ContainerCreating" || w.Reason == "PodInitializing") {
			return true
		}
	}
	return false
}

// showsFatal reports whether a Warning event of the pod's shows a cause
// of fatalEarly.
func showsFatal(events []live.Event) bool {
	causes := fatalEarly()
	for _, e := range events {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		for _, c := range causes {
			if _, ok := anyMatch(e.Message, c.Patterns); ok {
				return true
			}
		}
	}
	return false
}

// EventSelector leaves out, server-side, the routine events no cause
// reads: a container created or started, a pod scheduled. They are most
// of a healthy cluster's events. (Pulled stays: it ends a pull that
// slow-image-pull would otherwise see as still running.)
const EventSelector = "reason!=Started,reason!=Created,reason!=Scheduled"

// waitingReasons are container waiting reasons that mean trouble.
var waitingReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerError": true, "CreateContainerConfigError": true, "RunContainerError": true,
	"CrashLoopBackOff": true, "PreCreateHookError": true, "PreStartHookError": true,
}

// State says why a pod is unhealthy ("" when it is not): Pending,
// ContainerCreating, a container's waiting reason, Failed, Evicted,
// Restarting (restarts after OOM kills or failed liveness probes) or
// NotReady.
func State(p *corev1.Pod, now time.Time, creatingAfter time.Duration) string {
	if p.DeletionTimestamp != nil {
		return ""
	}
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return ""
	case corev1.PodFailed:
		if p.Status.Reason == "Evicted" {
			return "Evicted"
		}
		return "Failed"
	}
	if p.Spec.NodeName == "" {
		return "Pending"
	}
	for _, cs := range allStatuses(p) {
		if w := cs.State.Waiting; w != nil && waitingReasons[w.Reason] {
			return w.Reason
		}
	}
	for _, cs := range allStatuses(p) {
		if w := cs.State.Waiting; w != nil && (w.Reason == "ContainerCreating" || w.Reason == "PodInitializing") {
			if now.Sub(since(p)) >= creatingAfter {
				return "ContainerCreating"
			}
			return ""
		}
	}
	if p.Status.Phase == corev1.PodPending && len(allStatuses(p)) == 0 && now.Sub(since(p)) >= creatingAfter {
		return "ContainerCreating"
	}
	for _, cs := range allStatuses(p) {
		if cs.RestartCount > 0 && cs.LastTerminationState.Terminated != nil && cs.LastTerminationState.Terminated.ExitCode != 0 {
			return "Restarting"
		}
	}
	if p.Status.Phase == corev1.PodRunning && !podReady(p) {
		return "NotReady"
	}
	return ""
}

// since is when the pod was bound, else created.
func since(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func allStatuses(p *corev1.Pod) []corev1.ContainerStatus {
	out := append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...)
	return append(out, p.Status.ContainerStatuses...)
}
