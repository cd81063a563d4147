package audit

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const ns = "shop"

// event is one event as a kubelet (core/v1) or kube-scheduler
// (events.k8s.io/v1) writes it about a pod.
type event struct {
	newAPI    bool // events.k8s.io/v1, as kube-scheduler writes; else core/v1 as the kubelet does
	typ       string
	reason    string
	message   string
	fieldPath string
	count     int32
	at        int // minutes after past
}

// podCase is one pod of the scenario and the cause doctor must name
// first for it ("" when it is healthy).
type podCase struct {
	cause  string
	pod    *corev1.Pod
	status corev1.PodStatus
	events []event
}

const (
	servercore2022 = "mcr.microsoft.com/windows/servercore:ltsc2022"
	servercore2019 = "mcr.microsoft.com/windows/servercore:ltsc2019"
	nano2022       = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
)

var winToleration = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}

func winPod(name, node, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			NodeName:     node,
			OS:           &corev1.PodOS{Name: corev1.Windows},
			NodeSelector: map[string]string{corev1.LabelOSStable: "windows"},
			Tolerations:  winToleration,
			Containers: []corev1.Container{{Name: "app", Image: image,
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}}},
		},
	}
}

func linuxPod(name, node, image string) *corev1.Pod {
	p := winPod(name, node, image)
	p.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
	p.Spec.NodeSelector = map[string]string{corev1.LabelOSStable: "linux"}
	p.Spec.Tolerations = nil
	return p
}

func t(min int) metav1.Time { return metav1.NewTime(past.Add(timeMinutes(min))) }

func scheduled(min int) corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: t(min)}
}

func unschedulable(msg string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: msg, LastTransitionTime: t(0)}}}
}

func waiting(reason, msg string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled(0)},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}}
}

func restarting(reason string, last corev1.ContainerStateTerminated, restarts int32, running bool) corev1.PodStatus {
	st := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "back-off 5m0s restarting failed container=app pod=x"}}
	phase := corev1.PodRunning
	if running {
		st = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t(30)}}
	}
	last.StartedAt, last.FinishedAt = t(10), t(12)
	return corev1.PodStatus{Phase: phase, Conditions: []corev1.PodCondition{scheduled(0), {Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: t(12)}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: restarts, State: st, LastTerminationState: corev1.ContainerState{Terminated: &last}}}}
}

func failed(reason, msg string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodFailed, Reason: reason, Message: msg}
}

const (
	hcsMismatch = "hcs::CreateComputeSystem %s: The container operating system does not match the host operating system."
	sandboxPfx  = "Failed to create pod sandbox: rpc error: code = Unknown desc = "
)

func withCommand(p *corev1.Pod, cmd ...string) *corev1.Pod {
	p.Spec.Containers[0].Command = cmd
	return p
}

func withLiveness(p *corev1.Pod) *corev1.Pod {
	p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(80)}}, PeriodSeconds: 10, FailureThreshold: 3}
	return p
}

func hostProcess(p *corev1.Pod) *corev1.Pod {
	yes := true
	user := `NT AUTHORITY\Systemm`
	p.Spec.HostNetwork = true
	p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: &yes, RunAsUserName: &user}}
	return p
}

func withSelector(p *corev1.Pod, k, v string) *corev1.Pod {
	p.Spec.NodeSelector[k] = v
	return p
}

func withCPU(p *corev1.Pod, cpu string) *corev1.Pod {
	p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	return p
}

func noToleration(p *corev1.Pod) *corev1.Pod {
	p.Spec.Tolerations = nil
	return p
}

// podLevelResources sets spec.resources. The API server forbids it for
// a pod whose spec.os.name is windows, so the pod names no OS: only the
// Windows kubelet then refuses it.
func podLevelResources(p *corev1.Pod) *corev1.Pod {
	p.Spec.OS = nil
	p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}}
	return p
}

func timeMinutes(m int) time.Duration { return time.Duration(m) * time.Minute }
