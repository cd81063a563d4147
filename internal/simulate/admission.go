package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// podFor builds the pod a workload's controller creates, before admission:
// the template with the controller's labels, the API server's defaults
// winkube relies on, and for a DaemonSet the tolerations its controller
// adds to every pod.
func podFor(wl *workload) *corev1.Pod {
	meta := wl.spec.Template.DeepCopy()
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: wl.obj.Name, Namespace: wl.ns, Labels: meta.Labels, Annotations: meta.Annotations},
		Spec:       *wl.spec.Spec.DeepCopy(),
	}
	if extra := wl.controllerLabels(); len(extra) > 0 {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range extra {
			pod.Labels[k] = v
		}
	}
	defaultPorts(&pod.Spec)
	defaultRequests(&pod.Spec)
	if wl.daemon {
		addDaemonTolerations(&pod.Spec)
	}
	addDefaultTolerationSeconds(&pod.Spec)
	return pod
}

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

// validate runs the suite's API-rejection rules through the engine, in
// the API server's order of field errors (engine.Validate), and returns,
// per object, the API server's refusal: `Kind.group "name" is invalid:
// msg` or `... is invalid: [msg1, msg2]`. Only error findings count:
// warnings predict what the API server will say once spec.os.name is set.
func validate(objs []*manifest.Object, rcs map[string]*nodev1.RuntimeClass, m winsupport.Model) map[*manifest.Object]string {
	known := make([]*nodev1.RuntimeClass, 0, len(rcs))
	for _, name := range slices.Sorted(maps.Keys(rcs)) {
		known = append(known, rcs[name])
	}
	found := engine.Validate(objs, engine.Options{Rules: rules.API(), Cluster: cluster.Reference(), Model: m, RuntimeClasses: known})
	out := map[*manifest.Object]string{}
	for i, o := range objs {
		var msgs []string
		for _, f := range found[i] {
			if f.Severity == rule.Error {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) > 0 {
			out[o] = invalid(o, msgs)
		}
	}
	return out
}

// invalid renders field errors as apierrors.NewInvalid does: duplicates
// dropped, one message bare, several in brackets.
func invalid(o *manifest.Object, msgs []string) string {
	var uniq []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	gk := schema.GroupKind{Group: o.Group(), Kind: o.Kind}
	agg := uniq[0]
	if len(uniq) > 1 {
		agg = "[" + strings.Join(uniq, ", ") + "]"
	}
	return fmt.Sprintf("%s %q is invalid: %s", gk.String(), o.Name, agg)
}
