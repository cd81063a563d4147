package cluster

import (
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Defaults for a pool that leaves them out.
const (
	DefaultMaxPods = 110
	// MinWindowsSystemMemory is what a Windows node should reserve for the
	// OS, kubelet and runtime (https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation: at least 2 GiB).
	MinWindowsSystemMemory = 2 << 30
)

// DefaultEphemeralStorage is a node's disk when a pool does not say.
var DefaultEphemeralStorage = resource.MustParse("100Gi")

// DefaultReserved returns what the OS and system services of a node keep
// for themselves when a pool does not say (https://kubernetes.io/docs/concepts/storage/windows-storage/: about 1.2 CPU and
// 3.5 GiB on Windows, 0.6 CPU and 1.3 GiB on Linux).
func DefaultReserved(os string) corev1.ResourceList {
	if os == "windows" {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1200m"), corev1.ResourceMemory: resource.MustParse("3.5Gi")}
	}
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("600m"), corev1.ResourceMemory: resource.MustParse("1.3Gi")}
}

// Capacity is the capacity of one node of the pool.
func (p *Pool) Capacity() corev1.ResourceList {
	maxPods := p.MaxPods
	if maxPods == 0 {
		maxPods = DefaultMaxPods
	}
	eph := p.EphemeralStorage
	if eph.IsZero() {
		eph = DefaultEphemeralStorage
	}
	c := corev1.ResourceList{
		corev1.ResourceCPU:              p.CPU,
		corev1.ResourceMemory:           p.Memory,
		corev1.ResourceEphemeralStorage: eph,
		corev1.ResourcePods:             *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
	}
	for name, q := range p.Extended {
		c[name] = q
	}
	return c
}

// EffectiveReserved is Reserved with the OS defaults for what it leaves out.
func (p *Pool) EffectiveReserved() corev1.ResourceList {
	r := DefaultReserved(p.OS)
	for name, q := range p.Reserved {
		r[name] = q
	}
	return r
}

// Allocatable is capacity minus what is reserved for the system; pods are
// not reserved.
func (p *Pool) Allocatable() corev1.ResourceList {
	a := p.Capacity()
	for name, q := range p.EffectiveReserved() {
		c, ok := a[name]
		if !ok || name == corev1.ResourcePods {
			continue
		}
		// Whole milli-CPUs and whole bytes, as a kubelet reports them.
		if name == corev1.ResourceCPU {
			a[name] = *resource.NewMilliQuantity(max(c.MilliValue()-q.MilliValue(), 0), resource.DecimalSI)
		} else {
			a[name] = *resource.NewQuantity(max(c.Value()-q.Value(), 0), c.Format)
		}
	}
	return a
}

// Warnings returns advice about the cluster that is not an error: a Windows
// pool that reserves too little memory for the system.
func (c *Cluster) Warnings() []string {
	var out []string
	for i := range c.Pools {
		p := &c.Pools[i]
		if p.OS != "windows" || p.Count == 0 {
			continue
		}
		mem := p.EffectiveReserved()[corev1.ResourceMemory]
		if mem.Value() < MinWindowsSystemMemory {
			out = append(out, fmt.Sprintf("pool %s reserves %s of memory for the system; reserve at least 2Gi on Windows nodes (kubeReserved plus systemReserved): Windows has no memory eviction, so pods can starve the OS (https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#memory-management)", p.Name, mem.String()))
		}
	}
	return out
}

// Nodes returns the cluster's nodes and the pool of each node name: the
// observed nodes when the cluster was read from Node objects, otherwise
// the expansion of its pools (node <pool>-<index>).
func (c *Cluster) Nodes() ([]*corev1.Node, map[string]string) {
	if c.Observed != nil {
		return c.Observed, c.ObservedPools
	}
	var nodes []*corev1.Node
	pools := map[string]string{}
	for i := range c.Pools {
		p := &c.Pools[i]
		alloc := p.Allocatable()
		capacity := p.Capacity()
		for j := 0; j < p.Count; j++ {
			n := p.node(j, capacity, alloc)
			nodes = append(nodes, n)
			pools[n.Name] = p.Name
		}
	}
	return nodes, pools
}

// node builds the j-th node of the pool as its kubelet would register it.
func (p *Pool) node(j int, capacity, alloc corev1.ResourceList) *corev1.Node {
	name := p.Name + "-" + strconv.Itoa(j)
	labels := p.NodeLabels()
	labels[LabelOSBeta] = p.OS
	labels["beta.kubernetes.io/arch"] = p.arch()
	labels[LabelHostname] = name
	if len(p.Zones) > 0 {
		labels[LabelZone] = p.Zones[j%len(p.Zones)]
	}
	n := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: append([]corev1.Taint(nil), p.Taints...)},
		Status: corev1.NodeStatus{
			Capacity:    capacity.DeepCopy(),
			Allocatable: alloc.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{OperatingSystem: p.OS, Architecture: p.arch()},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	if p.OS == "windows" && p.WindowsBuild != "" {
		n.Status.NodeInfo.KernelVersion = p.WindowsBuild
	}
	if p.SandboxImage != "" {
		n.Annotations = map[string]string{AnnotationSandboxImage: p.SandboxImage}
	}
	return n
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
