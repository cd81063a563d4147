package simulate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/winkube/winkube/internal/cluster"
)

// schedPod is what the scheduler reads of a pod template, computed once
// per workload and shared by its replicas.
type schedPod struct {
	pod         *corev1.Pod
	required    nodeaffinity.RequiredNodeAffinity
	preferred   *nodeaffinity.PreferredSchedulingTerms
	tolerations []corev1.Toleration
	preferTols  []corev1.Toleration // those that can tolerate PreferNoSchedule
	// nodeNames is NodeAffinity's PreFilter result: the union over the
	// required terms of their metadata.name matchFields, nil when some
	// term names no node (all nodes qualify).
	nodeNames map[string]bool
	conflict  bool // every term names nodes, and their intersections are empty
	// perNode is set when static filters must look at each node rather
	// than its class: the pod selects on hostname or matchFields.
	perNode bool

	req        amounts
	scoreCPU   int64
	scoreMem   int64
	bestEffort bool
	ports      []corev1.ContainerPort

	affinity *interPod // nil when the pod has no inter-pod (anti-)affinity
	spread   []spreadConstraint
	prefs    *podPrefs   // InterPodAffinity's scoring terms; nil without any
	soft     *softSpread // PodTopologySpread's scoring; nil when it skips
	images   []string    // init, app and image-volume images, for ImageLocality
	// imageContainers is how many containers ImageLocality's threshold
	// counts.
	imageContainers int

	preemptNever bool
}

// newSchedPod reads the admitted pod. For a DaemonSet the controller
// replaces the required node affinity by a per-node matchFields term,
// which the scheduler then checks against the one target node.
func newSchedPod(pod *corev1.Pod, daemon bool) *schedPod {
	sp := &schedPod{pod: pod, tolerations: pod.Spec.Tolerations}
	forAffinity := pod
	if daemon {
		forAffinity = withoutRequiredNodeAffinity(pod)
	}
	sp.required = nodeaffinity.GetRequiredNodeAffinity(forAffinity)
	if !daemon {
		sp.readNodeNames()
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		// Parsing errors are ignored, as the scheduler ignores them.
		sp.preferred, _ = nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
		sp.perNode = sp.perNode || preferredUsesHostname(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	sp.perNode = sp.perNode || selectsHostname(forAffinity)
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			sp.preferTols = append(sp.preferTols, t)
		}
	}
	sp.req = podRequests(pod)
	sp.scoreCPU, sp.scoreMem = scoringRequests(pod)
	sp.bestEffort = sp.req.MilliCPU == 0 && sp.req.Memory == 0
	sp.ports = hostPorts(pod)
	sp.affinity = newInterPod(pod)
	sp.prefs = newPodPrefs(pod)
	for _, c := range append(slices.Clip(pod.Spec.InitContainers), pod.Spec.Containers...) {
		sp.images = append(sp.images, c.Image)
	}
	sp.imageContainers = len(pod.Spec.InitContainers) + len(pod.Spec.Containers)
	for _, v := range pod.Spec.Volumes {
		if v.Image != nil {
			sp.images = append(sp.images, v.Image.Reference)
		}
	}
	sp.spread = spreadConstraints(pod)
	sp.preemptNever = pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever
	return sp
}

// simple reports whether only a node's class and usage decide the pod's
// fate there, so nodes can be judged by bucket.
func (sp *schedPod) simple() bool {
	return !sp.perNode && sp.nodeNames == nil && !sp.conflict && len(sp.ports) == 0 && sp.affinity == nil && len(sp.spread) == 0
}

func withoutRequiredNodeAffinity(pod *corev1.Pod) *corev1.Pod {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return pod
	}
	cp := *pod
	cp.Spec.Affinity = a.DeepCopy()
	cp.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
	return &cp
}

// readNodeNames mirrors NodeAffinity.PreFilter's use of metadata.name.
func (sp *schedPod) readNodeNames() {
	a := sp.pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return
	}
	var union map[string]bool
	for _, t := range terms {
		var names map[string]bool
		for _, r := range t.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			s := map[string]bool{}
			for _, v := range r.Values {
				if names == nil || names[v] {
					s[v] = true
				}
			}
			names = s
		}
		if names == nil {
			return // this term does not restrict node names
		}
		if union == nil {
			union = map[string]bool{}
		}
		for n := range names {
			union[n] = true
		}
	}
	if len(union) == 0 {
		sp.conflict = true
		return
	}
	sp.nodeNames = union
}

// selectsHostname reports whether the required node selection reads a
// label that differs between nodes of one class, or a node field.
func selectsHostname(pod *corev1.Pod) bool {
	if _, ok := pod.Spec.NodeSelector[cluster.LabelHostname]; ok {
		return true
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if termUsesHostname(t) {
			return true
		}
	}
	return false
}

func preferredUsesHostname(terms []corev1.PreferredSchedulingTerm) bool {
	for _, t := range terms {
		if termUsesHostname(t.Preference) {
			return true
		}
	}
	return false
}

func termUsesHostname(t corev1.NodeSelectorTerm) bool {
	if len(t.MatchFields) > 0 {
		return true
	}
	for _, e := range t.MatchExpressions {
		if e.Key == cluster.LabelHostname {
			return true
		}
	}
	return false
}

// hostPorts lists the ports the pod takes on its node: those of its
// containers and of its restartable init containers.
func hostPorts(pod *corev1.Pod) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}
