package audit

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// shape is what decides where one more replica of a workload fits and
// whether it starts: its scheduling constraints, its requests and ports,
// its images and OS. Two Windows workloads of the same shape have the
// same headroom, so the simulation answers --max once per shape.
type shape struct {
	NodeSelector     map[string]string                     `json:"ns,omitempty"`
	NodeAffinity     *corev1.NodeAffinity                  `json:"na,omitempty"`
	Tolerations      []corev1.Toleration                   `json:"t,omitempty"`
	RuntimeClassName *string                               `json:"rc,omitempty"`
	OS               *corev1.PodOS                         `json:"os,omitempty"`
	HostNetwork      bool                                  `json:"hn,omitempty"`
	Overhead         corev1.ResourceList                   `json:"o,omitempty"`
	Resources        *corev1.ResourceRequirements          `json:"r,omitempty"`
	Windows          *corev1.WindowsSecurityContextOptions `json:"w,omitempty"`
	Containers       []containerShape                      `json:"c"`
	Init             []containerShape                      `json:"i,omitempty"`
	Priority         string                                `json:"p,omitempty"`
	Scheduler        string                                `json:"s,omitempty"`
}

type containerShape struct {
	Image     string                                `json:"i"`
	Resources corev1.ResourceRequirements           `json:"r"`
	Ports     []corev1.ContainerPort                `json:"p,omitempty"`
	Windows   *corev1.WindowsSecurityContextOptions `json:"w,omitempty"`
}

// shapeKey returns the workload's shape as a map key, or "" when the
// shape cannot be shared: pod (anti-)affinity and topology spread read
// the pods' labels, so such a workload's headroom is its own.
func shapeKey(spec *corev1.PodSpec) string {
	if len(spec.TopologySpreadConstraints) > 0 || (spec.Affinity != nil && (spec.Affinity.PodAffinity != nil || spec.Affinity.PodAntiAffinity != nil)) {
		return ""
	}
	s := shape{NodeSelector: spec.NodeSelector, Tolerations: spec.Tolerations, RuntimeClassName: spec.RuntimeClassName, OS: spec.OS,
		HostNetwork: spec.HostNetwork, Overhead: spec.Overhead, Resources: spec.Resources, Priority: spec.PriorityClassName, Scheduler: spec.SchedulerName}
	if spec.Affinity != nil {
		s.NodeAffinity = spec.Affinity.NodeAffinity
	}
	if spec.SecurityContext != nil {
		s.Windows = spec.SecurityContext.WindowsOptions
	}
	for _, c := range spec.Containers {
		s.Containers = append(s.Containers, containerOf(c))
	}
	for _, c := range spec.InitContainers {
		s.Init = append(s.Init, containerOf(c))
	}
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return string(b)
}

func containerOf(c corev1.Container) containerShape {
	cs := containerShape{Image: c.Image, Resources: c.Resources, Ports: c.Ports}
	if c.SecurityContext != nil {
		cs.Windows = c.SecurityContext.WindowsOptions
	}
	return cs
}
