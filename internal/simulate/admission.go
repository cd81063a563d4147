package simulate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/winkube/winkube/internal/target"
)

// defaultPorts applies the API server's port defaults: protocol TCP, and
// on a hostNetwork pod a host port equal to the container port.
func defaultPorts(s *corev1.PodSpec) {
	fix := func(cs []corev1.Container) {
		for i := range cs {
			for j := range cs[i].Ports {
				p := &cs[i].Ports[j]
				if p.Protocol == "" {
					p.Protocol = corev1.ProtocolTCP
				}
				if s.HostNetwork && p.HostPort == 0 {
					p.HostPort = p.ContainerPort
				}
			}
		}
	}
	fix(s.InitContainers)
	fix(s.Containers)
}

// defaultRequests applies the API server's pod defaulting of requests
// from limits (SetDefaults_Pod): a container that sets a limit and no
// request for a resource requests its limit, and the scheduler counts it.
func defaultRequests(s *corev1.PodSpec) {
	fix := func(cs []corev1.Container) {
		for i := range cs {
			r := &cs[i].Resources
			for name, limit := range r.Limits {
				if _, ok := r.Requests[name]; ok {
					continue
				}
				if r.Requests == nil {
					r.Requests = corev1.ResourceList{}
				}
				r.Requests[name] = limit.DeepCopy()
			}
		}
	}
	fix(s.InitContainers)
	fix(s.Containers)
}

// addDaemonTolerations adds what the DaemonSet controller adds to every
// pod (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations).
func addDaemonTolerations(s *corev1.PodSpec) {
	add := func(key string, effect corev1.TaintEffect) {
		t := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
		for i := range s.Tolerations {
			if t.MatchToleration(&s.Tolerations[i]) {
				s.Tolerations[i] = t
				return
			}
		}
		s.Tolerations = append(s.Tolerations, t)
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if s.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
}

// addDefaultTolerationSeconds is the DefaultTolerationSeconds admission
// plugin: 300 s tolerations of not-ready and unreachable nodes.
func addDefaultTolerationSeconds(s *corev1.PodSpec) {
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		taint := corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute}
		tolerated := false
		for i := range s.Tolerations {
			t := &s.Tolerations[i]
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") && t.ToleratesTaint(quiet, &taint, false) {
				tolerated = true
			}
		}
		if !tolerated {
			secs := int64(300)
			s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs})
		}
	}
}

// admitRuntimeClass is the RuntimeClass admission plugin: it refuses a
// pod naming an unknown class or contradicting it, and otherwise sets the
// class's overhead and merges its scheduling into the pod. The refusal is
// returned without the "pods "name" is forbidden: " prefix.
func admitRuntimeClass(pod *corev1.Pod, rcs map[string]*nodev1.RuntimeClass) string {
	name := pod.Spec.RuntimeClassName
	if name == nil {
		return ""
	}
	rc, ok := rcs[*name]
	if !ok {
		return fmt.Sprintf("pod rejected: RuntimeClass %q not found", *name)
	}
	if rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	} else if pod.Spec.Overhead != nil {
		return "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
	}
	if rc.Scheduling == nil {
		return ""
	}
	sel, tols, conflict := target.MergeRuntimeClass(pod.Spec.NodeSelector, pod.Spec.Tolerations, rc)
	if conflict != "" {
		return conflict
	}
	pod.Spec.NodeSelector, pod.Spec.Tolerations = sel, tols
	return ""
}

// systemPriorities are the PriorityClasses every cluster has.
var systemPriorities = map[string]int32{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

// admitPriority is the Priority admission plugin: a pod may not set its
// own priority or preemption policy unless they equal its class's. winkube
// knows the system classes and, with no class named, the default (no
// global default class: priority 0, PreemptLowerPriority); other classes
// live in the cluster and are not checked.
func admitPriority(pod *corev1.Pod) string {
	priority, ok := int32(0), true
	if name := pod.Spec.PriorityClassName; name != "" {
		priority, ok = systemPriorities[name]
	}
	if !ok {
		return ""
	}
	if p := pod.Spec.Priority; p != nil && *p != priority {
		return fmt.Sprintf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p, priority)
	}
	if p := pod.Spec.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority {
		return fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *p, corev1.PreemptLowerPriority)
	}
	pod.Spec.Priority = &priority
	policy := corev1.PreemptLowerPriority
	pod.Spec.PreemptionPolicy = &policy
	return ""
}

// forbidden formats an admission plugin's refusal as the API server does.
func forbidden(pod, msg string) string {
	return fmt.Sprintf("pods %q is forbidden: %s", pod, msg)
}
