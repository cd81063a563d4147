package fidelity

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runtimeClasses draws up to three RuntimeClasses: Windows classes that pin
// a build and tolerate the usual taint (the seeds' recommendation), Hyper-V
// and Linux classes, with and without pod overhead.
func (g *gen) runtimeClasses() []*nodev1.RuntimeClass {
	var out []*nodev1.RuntimeClass
	for i := range g.weighted(40, 35, 20, 5) {
		kind := g.weighted(55, 15, 30) // windows process, windows hyper-v, linux
		rc := &nodev1.RuntimeClass{
			TypeMeta: metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
		}
		switch kind {
		case 0, 1:
			rc.Handler = "runhcs-wcow-process"
			if kind == 1 {
				rc.Handler = "runhcs-wcow-hypervisor"
			}
			rc.Scheduling = g.windowsScheduling()
		default:
			rc.Handler = "runc"
			if g.chance(0.7) {
				rc.Scheduling = &nodev1.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"}}
			}
		}
		rc.Name = g.prefix + "-" + rc.Handler + "-" + string(rune('a'+i))
		if g.chance(0.4) {
			rc.Overhead = &nodev1.Overhead{PodFixed: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(pick(g, "100m", "250m")),
				corev1.ResourceMemory: resource.MustParse(pick(g, "64Mi", "128Mi")),
			}}
		}
		out = append(out, rc)
	}
	return out
}

func (g *gen) windowsScheduling() *nodev1.Scheduling {
	if g.chance(0.1) {
		return nil
	}
	s := &nodev1.Scheduling{NodeSelector: map[string]string{}}
	if g.chance(0.85) {
		s.NodeSelector[corev1.LabelOSStable] = "windows"
	}
	if g.chance(0.6) {
		s.NodeSelector[labelWindowsBuild] = pick(g, windowsBuilds...).build
	}
	if g.chance(0.1) {
		s.NodeSelector[labelDisk] = "ssd"
	}
	switch g.weighted(55, 15, 10, 20) {
	case 0:
		s.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	case 1:
		s.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpExists}}
	case 2:
		s.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	return s
}
