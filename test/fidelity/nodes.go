package fidelity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels the generated nodes and pods use beyond the well-known ones.
const (
	labelWindowsBuild = "node.kubernetes.io/windows-build"
	labelBetaOS       = "beta.kubernetes.io/os"
	labelZone         = "topology.kubernetes.io/zone"
	labelDisk         = "disktype"
	labelGPUs         = "example.com/gpu-count" // numeric, for Gt and Lt
	labelTeam         = "team"
)

// windowsBuilds are the node.kubernetes.io/windows-build values of Windows
// Server 2019, 2022 and 2025, with the OS image a node of that build reports.
var windowsBuilds = []struct{ build, image string }{
	{"10.0.17763", "Windows Server 2019 Datacenter"},
	{"10.0.20348", "Windows Server 2022 Datacenter"},
	{"10.0.26100", "Windows Server 2025 Datacenter"},
}

func taint(key, value string, effect corev1.TaintEffect) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: effect}
}

// windowsTaints are the conventions found on Windows nodes in the seeds
// and in real clusters, including none at all and a mis-cased key.
var windowsTaints = []struct {
	weight int
	taints []corev1.Taint
}{
	{18, nil},
	{32, []corev1.Taint{taint("os", "windows", corev1.TaintEffectNoSchedule)}},
	{12, []corev1.Taint{taint("node.kubernetes.io/os", "windows", corev1.TaintEffectNoSchedule)}},
	{10, []corev1.Taint{taint("OS", "Windows", corev1.TaintEffectNoSchedule)}},
	{8, []corev1.Taint{taint("os", "windows", corev1.TaintEffectPreferNoSchedule)}},
	{8, []corev1.Taint{taint("os", "windows", corev1.TaintEffectNoExecute)}},
	{6, []corev1.Taint{taint("os", "windows", corev1.TaintEffectNoSchedule), taint("dedicated", "win", corev1.TaintEffectNoSchedule)}},
	{6, []corev1.Taint{taint("os", "windows", corev1.TaintEffectNoSchedule), taint("os", "windows", corev1.TaintEffectNoExecute)}},
}

// linuxTaints are the rarer taints of Linux nodes.
var linuxTaints = []struct {
	weight int
	taints []corev1.Taint
}{
	{78, nil},
	{10, []corev1.Taint{taint("dedicated", "infra", corev1.TaintEffectNoSchedule)}},
	{6, []corev1.Taint{taint("os", "linux", corev1.TaintEffectNoSchedule)}},
	{6, []corev1.Taint{taint("dedicated", "infra", corev1.TaintEffectPreferNoSchedule)}},
}

// nodes draws 1 to 5 nodes: usually a mix of Linux and Windows, sometimes
// one OS only.
func (g *gen) nodes() []*corev1.Node {
	n := 1 + g.weighted(10, 25, 30, 20, 15)
	shape := g.weighted(80, 10, 10) // mixed, windows only, linux only
	var out []*corev1.Node
	pools := map[string]*corev1.Node{} // first node of each OS
	for j := range n {
		os := "windows"
		switch {
		case shape == 2, shape == 0 && j == 0:
			os = "linux"
		case shape == 0 && j > 1:
			os = pick(g, "linux", "windows")
		}
		node := g.node(fmt.Sprintf("%s-%s%d", g.prefix, os[:3], j), os)
		if first := pools[os]; first == nil {
			pools[os] = node
		} else if g.chance(0.65) {
			samePool(node, first)
		}
		out = append(out, node)
	}
	return out
}

// samePool makes n a node of first's pool: same taints, build and
// capacity (other labels and unschedulable stay its own), so that several
// nodes are often equally feasible, as in real node pools.
func samePool(n, first *corev1.Node) {
	n.Spec.Taints = append([]corev1.Taint(nil), first.Spec.Taints...)
	n.Status.NodeInfo = first.Status.NodeInfo
	n.Status.Capacity, n.Status.Allocatable = first.Status.Capacity.DeepCopy(), first.Status.Allocatable.DeepCopy()
	delete(n.Labels, labelWindowsBuild)
	if b, ok := first.Labels[labelWindowsBuild]; ok {
		n.Labels[labelWindowsBuild] = b
	}
}

func (g *gen) node(name, os string) *corev1.Node {
	n := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: os, corev1.LabelHostname: name, corev1.LabelArchStable: "amd64"}},
	}
	n.Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: os, Architecture: "amd64", KubeletVersion: "v1.36.3",
		OSImage: "Ubuntu 24.04.2 LTS", KernelVersion: "6.8.0-1021-azure", ContainerRuntimeVersion: "containerd://2.1.4"}
	choices := linuxTaints
	if os == "windows" {
		choices = windowsTaints
		b := pick(g, windowsBuilds...)
		n.Status.NodeInfo.OSImage, n.Status.NodeInfo.KernelVersion = b.image, b.build+".3207"
		if g.chance(0.9) {
			n.Labels[labelWindowsBuild] = b.build
		}
	}
	weights := make([]int, len(choices))
	for i, c := range choices {
		weights[i] = c.weight
	}
	n.Spec.Taints = append([]corev1.Taint(nil), choices[g.weighted(weights...)].taints...)
	n.Spec.Unschedulable = g.chance(0.06)
	if g.chance(0.15) {
		n.Labels[labelBetaOS] = os
	}
	if g.chance(0.5) {
		n.Labels[labelDisk] = pick(g, "ssd", "hdd")
	}
	if g.chance(0.4) {
		n.Labels[labelGPUs] = pick(g, "0", "2", "4")
	}
	if g.chance(0.3) {
		n.Labels[labelTeam] = pick(g, "a", "b")
	}
	if g.chance(0.3) {
		n.Labels[labelZone] = pick(g, "z1", "z2")
	}
	g.capacity(n)
	return n
}

// capacity sets tight capacity and allocatable, so that a few pods fill a
// node and requests decide where pods fit.
func (g *gen) capacity(n *corev1.Node) {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(pick(g, "500m", "1", "2", "2", "4")),
		corev1.ResourceMemory: resource.MustParse(pick(g, "512Mi", "1Gi", "2Gi", "4Gi")),
		corev1.ResourcePods:   resource.MustParse(pick(g, "1", "2", "3", "110", "110")),
	}
	if g.chance(0.75) {
		capacity[corev1.ResourceEphemeralStorage] = resource.MustParse(pick(g, "1Gi", "10Gi", "50Gi"))
	}
	allocatable := capacity.DeepCopy()
	if g.chance(0.3) { // system reservations: allocatable below capacity
		cpu := allocatable[corev1.ResourceCPU]
		cpu.Sub(resource.MustParse("100m"))
		mem := allocatable[corev1.ResourceMemory]
		mem.Sub(resource.MustParse("256Mi"))
		allocatable[corev1.ResourceCPU], allocatable[corev1.ResourceMemory] = cpu, mem
	}
	n.Status.Capacity, n.Status.Allocatable = capacity, allocatable
}
