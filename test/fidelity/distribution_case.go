package fidelity

import (
	"fmt"
	"math/rand/v2"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlacementNamespace holds the workloads and pods of the placement cases.
const PlacementNamespace = "placement"

// Labels the placement cases use beyond those of the feasibility cases.
const (
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelApp          = "app"
)

// PlacementCase is a hybrid cluster and the workloads created in it one
// after another, for comparing where replicas land.
type PlacementCase struct {
	Name string
	// Nodes are created in this order, which is name order.
	Nodes []*corev1.Node
	// Existing pods name their node (spec.nodeName) and are created after
	// the nodes, before the Deployments.
	Existing []*corev1.Pod
	// Workloads (Deployments, DaemonSets, StatefulSets, Jobs) are created
	// one at a time, each once every pod of the previous one is bound or
	// pending.
	Workloads []Workload
	// FullScoring runs winkube with simulate.Input.FullScoring: every
	// score plugin and the scheduler's node sampling from 100 nodes.
	FullScoring bool
}

// documents lists the case's objects for winkube, in the order the real
// cluster gets them: existing pods, then the workloads.
func (pc *PlacementCase) documents() []any {
	var docs []any
	for _, p := range pc.Existing {
		docs = append(docs, p)
	}
	for _, w := range pc.Workloads {
		docs = append(docs, w)
	}
	return docs
}

// nodeSize is an instance size: capacity, and allocatable per OS after the
// kubelet's reservations (those of the reference cluster file).
type nodeSize struct {
	name     string
	cpu, mem string // capacity
}

var nodeSizes = []nodeSize{
	{"std-2", "2", "8Gi"},
	{"std-4", "4", "16Gi"},
	{"std-8", "8", "32Gi"},
	{"std-16", "16", "64Gi"},
}

// reserved is what the kubelet keeps back per OS (examples/cluster.yaml).
var reserved = map[string][2]string{
	"linux":   {"600m", "1332Mi"},
	"windows": {"1200m", "3584Mi"},
}

// placementNode builds a Node as a kubelet of that OS and size would
// register it.
func placementNode(name, os string, size nodeSize, zone string) *corev1.Node {
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelOSStable: os, corev1.LabelArchStable: "amd64", corev1.LabelHostname: name,
			labelZone: zone, labelInstanceType: size.name,
		}},
	}
	n.Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: os, Architecture: "amd64", KubeletVersion: "v1.36.3",
		OSImage: "Ubuntu 24.04.2 LTS", KernelVersion: "6.8.0-1021-azure", ContainerRuntimeVersion: "containerd://2.1.4"}
	if os == "windows" {
		n.Labels[labelWindowsBuild] = "10.0.20348"
		n.Status.NodeInfo.OSImage, n.Status.NodeInfo.KernelVersion = "Windows Server 2022 Datacenter", "10.0.20348.3207"
		n.Spec.Taints = []corev1.Taint{taint("os", "windows", corev1.TaintEffectNoSchedule)}
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(size.cpu),
		corev1.ResourceMemory: resource.MustParse(size.mem),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	allocatable := capacity.DeepCopy()
	cpu, mem := allocatable[corev1.ResourceCPU], allocatable[corev1.ResourceMemory]
	cpu.Sub(resource.MustParse(reserved[os][0]))
	mem.Sub(resource.MustParse(reserved[os][1]))
	allocatable[corev1.ResourceCPU], allocatable[corev1.ResourceMemory] = cpu, mem
	n.Status.Capacity, n.Status.Allocatable = capacity, allocatable
	return n
}

// osTolerations are what a pod meant for that OS carries: Windows pods
// tolerate the os=windows taint.
func osTolerations(os string) []corev1.Toleration {
	if os == "windows" {
		return []corev1.Toleration{toleration("os", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule)}
	}
	return nil
}

// deployment builds a Deployment of replicas pods for an OS, labelled
// app=<name>, each pod asking for cpu and mem ("" for no request).
func deployment(name, os string, replicas int32, cpu, mem string) *appsv1.Deployment {
	t := podTemplate(name, os, cpu, mem)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: PlacementNamespace, Labels: t.Labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: t.Labels},
			Template: t,
		},
	}
}

// IssueReproduction is the scenario of issue 14: six nodes (three Linux,
// three Windows; two sizes; two zones) and two Deployments of 30 and 20
// replicas, one per OS.
func IssueReproduction() *PlacementCase {
	small, large := nodeSizes[1], nodeSizes[2]
	pc := &PlacementCase{Name: "issue-14"}
	for _, n := range []struct {
		name, os string
		size     nodeSize
		zone     string
	}{
		{"issue14-lin-1", "linux", small, "z1"},
		{"issue14-lin-2", "linux", large, "z1"},
		{"issue14-lin-3", "linux", small, "z2"},
		{"issue14-win-1", "windows", large, "z1"},
		{"issue14-win-2", "windows", small, "z2"},
		{"issue14-win-3", "windows", large, "z2"},
	} {
		pc.Nodes = append(pc.Nodes, placementNode(n.name, n.os, n.size, n.zone))
	}
	pc.Workloads = []Workload{
		deployment("web", "linux", 30, "100m", "128Mi"),
		deployment("iis", "windows", 20, "250m", "512Mi"),
	}
	return pc
}

// NewPlacementCase generates placement case index of the run seed, from
// its own random stream: 3 to 12 nodes of both OSes, two or three sizes and
// two zones, some with a PreferNoSchedule taint or a disktype=ssd label;
// up to four existing pods bound by name; and two to four Deployments of
// 10 to 50 replicas, some with their own ScheduleAnyway spread constraints,
// preferred node affinity, or preferred pod (anti-)affinity. Requests are
// kept well below capacity so every replica fits: the test is about where
// pods go, not whether.
func NewPlacementCase(seed uint64, index int) *PlacementCase {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(index)^0x9e3779b97f4a7c15)), prefix: fmt.Sprintf("p%d", index)}
	pc := &PlacementCase{Name: fmt.Sprintf("placement-seed-%d-case-%d", seed, index)}

	// Nodes: both OSes, both zones, two or three sizes.
	sizes := slices.Clone(nodeSizes)
	g.r.Shuffle(len(sizes), func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	sizes = sizes[:2+g.r.IntN(2)]
	count := 3 + g.r.IntN(10)
	oses := make([]string, count)
	zones := make([]string, count)
	for i := range count {
		oses[i] = pick(g, "linux", "windows")
		zones[i] = pick(g, "z1", "z2")
	}
	oses[0], oses[1] = "linux", "windows"
	zones[g.r.IntN(count)], zones[g.r.IntN(count)] = "z1", "z2"
	if !slices.Contains(zones, "z1") || !slices.Contains(zones, "z2") { // both draws hit one node
		zones[0], zones[1] = "z1", "z2"
	}
	g.r.Shuffle(count, func(i, j int) { oses[i], oses[j] = oses[j], oses[i] })
	for i := range count {
		size := pick(g, sizes...)
		if oses[i] == "windows" && size.name == "std-2" {
			size = nodeSizes[1] // 800m allocatable would hold almost nothing
		}
		n := placementNode(fmt.Sprintf("%s-%02d-%s", g.prefix, i+1, oses[i][:3]), oses[i], size, zones[i])
		if g.chance(0.4) {
			n.Labels[labelDisk] = "ssd"
		}
		if g.chance(0.25) {
			n.Spec.Taints = append(n.Spec.Taints, taint("spot", "true", corev1.TaintEffectPreferNoSchedule))
		}
		pc.Nodes = append(pc.Nodes, n)
	}
	free := newCapacity(pc.Nodes)

	// Existing pods, bound by name as a DaemonSet's or a static pod would be.
	for i := range g.weighted(25, 25, 25, 15, 10) {
		n := pick(g, pc.Nodes...)
		os := n.Labels[corev1.LabelOSStable]
		cpu, mem := pick(g, "100m", "250m", "500m", "1"), pick(g, "128Mi", "512Mi", "1Gi", "2Gi")
		if !free.take(os, n.Name, 1, cpu, mem) {
			continue
		}
		app := pick(g, "cache", "db")
		pc.Existing = append(pc.Existing, &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", app, i), Namespace: PlacementNamespace, Labels: map[string]string{labelApp: app}},
			Spec: corev1.PodSpec{
				NodeName:     n.Name,
				NodeSelector: map[string]string{corev1.LabelOSStable: os},
				Tolerations:  osTolerations(os),
				Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}},
			},
		})
	}

	// Deployments.
	for i := range 2 + g.weighted(40, 40, 20) {
		os := pick(g, "linux", "linux", "windows")
		if !free.fits(os, 10, "50m", "64Mi") {
			os = map[string]string{"linux": "windows", "windows": "linux"}[os]
		}
		replicas := int32(10 + g.r.IntN(41))
		cpu, mem := pick(g, "50m", "100m", "200m", "250m", "500m"), pick(g, "64Mi", "128Mi", "256Mi", "512Mi", "1Gi")
		if g.chance(0.1) {
			cpu, mem = "", "" // best effort: scored with the scheduler's non-zero defaults
		}
		for replicas > 10 && !free.fits(os, replicas, cpu, mem) {
			replicas = max(10, replicas*2/3)
		}
		if !free.fits(os, replicas, cpu, mem) {
			cpu, mem = "50m", "64Mi"
		}
		if !free.fits(os, replicas, cpu, mem) {
			cpu, mem = "", "" // the cluster is small: no requests, only pod slots
		}
		free.take(os, "", replicas, cpu, mem)
		d := deployment(fmt.Sprintf("d%d-%s", i+1, os[:3]), os, replicas, cpu, mem)
		g.placementPreferences(d.Name, &d.Spec.Template.Spec, pc)
		pc.Workloads = append(pc.Workloads, d)
	}
	return pc
}

// placementPreferences adds, at random, what steers replicas without
// forbidding nodes: the workload's own ScheduleAnyway spread constraints
// (which replace the scheduler's default ones), preferred node affinity,
// preferred pod affinity to the existing pods, preferred anti-affinity to
// its own replicas or to the existing pods, and a toleration of the
// PreferNoSchedule taint.
func (g *gen) placementPreferences(name string, spec *corev1.PodSpec, pc *PlacementCase) {
	self := &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: name}}
	if g.chance(0.35) {
		if g.chance(0.7) {
			spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
				MaxSkew: int32(1 + g.r.IntN(2)), TopologyKey: labelZone, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: self})
		}
		if len(spec.TopologySpreadConstraints) == 0 || g.chance(0.5) {
			spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
				MaxSkew: int32(1 + g.r.IntN(3)), TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: self})
		}
	}
	affinity := &corev1.Affinity{}
	if g.chance(0.4) {
		for range 1 + g.weighted(70, 30) {
			var req corev1.NodeSelectorRequirement
			switch g.weighted(40, 30, 30) {
			case 0:
				req = corev1.NodeSelectorRequirement{Key: labelDisk, Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}
			case 1:
				req = corev1.NodeSelectorRequirement{Key: labelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(g, "z1", "z2")}}
			default:
				req = corev1.NodeSelectorRequirement{Key: labelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{pick(g, nodeSizes...).name}}
			}
			if affinity.NodeAffinity == nil {
				affinity.NodeAffinity = &corev1.NodeAffinity{}
			}
			affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: int32(1 + g.r.IntN(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req}}})
		}
	}
	podTerm := func(app, key string) corev1.WeightedPodAffinityTerm {
		return corev1.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: app}}, TopologyKey: key}}
	}
	if len(pc.Existing) > 0 && g.chance(0.25) {
		affinity.PodAffinity = &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			podTerm("cache", pick(g, corev1.LabelHostname, labelZone))}}
	}
	if g.chance(0.3) {
		term := podTerm(name, corev1.LabelHostname)
		if len(pc.Existing) > 0 && g.chance(0.3) {
			term = podTerm("db", pick(g, corev1.LabelHostname, labelZone))
		}
		affinity.PodAntiAffinity = &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{term}}
	}
	if affinity.NodeAffinity != nil || affinity.PodAffinity != nil || affinity.PodAntiAffinity != nil {
		spec.Affinity = affinity
	}
	if g.chance(0.3) {
		spec.Tolerations = append(spec.Tolerations, toleration("spot", corev1.TolerationOpEqual, "true", corev1.TaintEffectPreferNoSchedule))
	}
}

// capacity tracks what the generated pods may still ask for, per OS, so
// that requests stay at most half of the allocatable CPU and memory and a
// third of the pod slots: every replica then fits wherever the scores send
// it, or nearly so.
type capacity struct {
	cpu, mem, pods map[string]int64 // per OS: milli-CPU, bytes, pods
	nodeCPU        map[string]int64 // per node, for existing pods
}

func newCapacity(nodes []*corev1.Node) *capacity {
	c := &capacity{cpu: map[string]int64{}, mem: map[string]int64{}, pods: map[string]int64{}, nodeCPU: map[string]int64{}}
	for _, n := range nodes {
		os := n.Labels[corev1.LabelOSStable]
		a := n.Status.Allocatable
		c.cpu[os] += a.Cpu().MilliValue() / 2
		c.mem[os] += a.Memory().Value() / 2
		c.pods[os] += a.Pods().Value() / 3
		c.nodeCPU[n.Name] = a.Cpu().MilliValue() / 2
	}
	return c
}

func quantities(cpu, mem string) (milli, bytes int64) {
	if cpu != "" {
		q := resource.MustParse(cpu)
		milli = q.MilliValue()
	}
	if mem != "" {
		q := resource.MustParse(mem)
		bytes = q.Value()
	}
	return milli, bytes
}

func (c *capacity) fits(os string, n int32, cpu, mem string) bool {
	milli, bytes := quantities(cpu, mem)
	return int64(n)*milli <= c.cpu[os] && int64(n)*bytes <= c.mem[os] && int64(n) <= c.pods[os]
}

// take reserves n pods' requests on an OS (and on a node when node is set)
// if they fit, reporting whether they did.
func (c *capacity) take(os, node string, n int32, cpu, mem string) bool {
	milli, bytes := quantities(cpu, mem)
	if !c.fits(os, n, cpu, mem) || (node != "" && milli > c.nodeCPU[node]) {
		return false
	}
	c.cpu[os] -= int64(n) * milli
	c.mem[os] -= int64(n) * bytes
	c.pods[os] -= int64(n)
	if node != "" {
		c.nodeCPU[node] -= milli
	}
	return true
}
