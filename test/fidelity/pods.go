package fidelity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pods draws one to four pods. Each leans towards Windows, Linux or no OS
// at all (its intent), which steers, but does not fix, its selectors,
// tolerations and images: mismatches are what the test is for.
func (g *gen) pods(nodes []*corev1.Node, classes []*nodev1.RuntimeClass) []*corev1.Pod {
	n := 1 + g.weighted(20, 35, 30, 15)
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = g.pod(i, nodes, classes)
	}
	return out
}

func (g *gen) pod(i int, nodes []*corev1.Node, classes []*nodev1.RuntimeClass) *corev1.Pod {
	intent := pick(g, "windows", "windows", "linux", "linux", "")
	name := fmt.Sprintf("p%d", i)
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"app": name}},
	}
	p.Spec.Containers = []corev1.Container{g.container("app", intent)}
	if g.chance(0.25) {
		p.Spec.Containers = append(p.Spec.Containers, g.container("logger", intent))
	}
	g.initContainers(p, intent)
	g.nodeSelector(p, intent, nodes)
	if g.chance(0.25) {
		g.affinity(p, intent, nodes)
	}
	g.tolerations(p, intent, nodes)
	g.runtimeClass(p, intent, classes)
	if g.chance(0.15) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
	}
	g.osFields(p, intent)
	return p
}

var images = map[string][]string{
	"windows": {
		"mcr.microsoft.com/windows/nanoserver:ltsc2022",
		"mcr.microsoft.com/windows/servercore:ltsc2019",
		"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2025",
		"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022",
	},
	"linux": {"nginx:1.27", "busybox:1.36", "registry.k8s.io/pause:3.10"},
	"":      {"registry.k8s.io/pause:3.10", "mcr.microsoft.com/windows/nanoserver:ltsc2022", "nginx:1.27"},
}

func (g *gen) container(name, intent string) corev1.Container {
	return corev1.Container{Name: name, Image: pick(g, images[intent]...), Resources: g.resources()}
}

// initContainers sometimes adds an init container (whose request counts
// only while it runs) and a restartable sidecar (whose request adds to the
// app containers'), in either order.
func (g *gen) initContainers(p *corev1.Pod, intent string) {
	if g.chance(0.2) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, g.container("init", intent))
	}
	if g.chance(0.12) {
		always := corev1.ContainerRestartPolicyAlways
		c := g.container("sidecar", intent)
		c.RestartPolicy = &always
		if g.chance(0.5) {
			p.Spec.InitContainers = append([]corev1.Container{c}, p.Spec.InitContainers...)
		} else {
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		}
	}
}

// resources draws nothing, requests, limits only (the API server copies
// them to requests) or equal requests and limits.
func (g *gen) resources() corev1.ResourceRequirements {
	list := func() corev1.ResourceList {
		l := corev1.ResourceList{}
		if g.chance(0.85) {
			l[corev1.ResourceCPU] = resource.MustParse(pick(g, "50m", "100m", "250m", "500m", "750m", "1", "1500m"))
		}
		if g.chance(0.8) {
			l[corev1.ResourceMemory] = resource.MustParse(pick(g, "32Mi", "128Mi", "256Mi", "512Mi", "1Gi", "1500Mi"))
		}
		if g.chance(0.15) {
			l[corev1.ResourceEphemeralStorage] = resource.MustParse(pick(g, "100Mi", "2Gi", "20Gi"))
		}
		return l
	}
	switch g.weighted(15, 65, 12, 8) {
	case 1:
		return corev1.ResourceRequirements{Requests: list()}
	case 2:
		return corev1.ResourceRequirements{Limits: list()}
	case 3:
		l := list()
		return corev1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}
	}
	return corev1.ResourceRequirements{}
}

// runtimeClass sometimes names one of the case's classes (matching the
// pod's intent or not, so that selectors conflict) or a missing one.
func (g *gen) runtimeClass(p *corev1.Pod, intent string, classes []*nodev1.RuntimeClass) {
	switch {
	case g.chance(0.03):
		name := g.prefix + "-missing"
		p.Spec.RuntimeClassName = &name
	case len(classes) > 0 && g.chance(0.4):
		name := pick(g, classes...).Name
		p.Spec.RuntimeClassName = &name
	}
}
