package simulate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// The scheduler's stand-ins for a container that requests no CPU or
// memory, used only for scoring (pkg/scheduler/util DefaultMilliCPURequest
// and DefaultMemoryRequest).
const (
	defaultMilliCPU = 100
	defaultMemory   = 200 * 1024 * 1024
)

// amounts is a set of resource amounts in the scheduler's units: milli-CPU,
// bytes, and plain values for everything else (extended resources,
// hugepages).
type amounts struct {
	MilliCPU, Memory, Ephemeral int64
	Scalar                      scalars // sorted by name; nil when none
}

// scalars are the amounts of resources other than CPU, memory and
// ephemeral storage, sorted by name so equal sets compare equal as keys.
type scalars []scalar

type scalar struct {
	Name  corev1.ResourceName
	Value int64
}

func (s scalars) get(name corev1.ResourceName) int64 {
	for _, x := range s {
		if x.Name == name {
			return x.Value
		}
	}
	return 0
}

// key renders scalars as a comparable string for bucket keys.
func (s scalars) key() string {
	if len(s) == 0 {
		return ""
	}
	var b strings.Builder
	for _, x := range s {
		fmt.Fprintf(&b, "%s=%d;", x.Name, x.Value)
	}
	return b.String()
}

// plus returns s + o (per name).
func (s scalars) plus(o scalars, sign int64) scalars {
	if len(o) == 0 {
		return s
	}
	m := map[corev1.ResourceName]int64{}
	for _, x := range s {
		m[x.Name] = x.Value
	}
	for _, x := range o {
		m[x.Name] += sign * x.Value
	}
	return scalarsOf(m)
}

func scalarsOf(m map[corev1.ResourceName]int64) scalars {
	var out scalars
	for k, v := range m {
		if v != 0 {
			out = append(out, scalar{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// amountsOf converts a resource list; pods are left out.
func amountsOf(l corev1.ResourceList) amounts {
	var a amounts
	m := map[corev1.ResourceName]int64{}
	for name, q := range l {
		switch name {
		case corev1.ResourceCPU:
			a.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			a.Memory = q.Value()
		case corev1.ResourceEphemeralStorage:
			a.Ephemeral = q.Value()
		case corev1.ResourcePods:
		default:
			m[name] = q.Value()
		}
	}
	a.Scalar = scalarsOf(m)
	return a
}

// podRequests is what the scheduler's NodeResourcesFit counts for a pod:
// the larger of the running containers' sum (with restartable init
// containers) and each init container with the sidecars started before
// it, plus the RuntimeClass overhead; pod-level resources when set.
func podRequests(pod *corev1.Pod) amounts {
	return amountsOf(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
}

// scoringRequests are the pod's CPU and memory as NodeResourcesFit's
// LeastAllocated scoring counts them: a container that does not request
// CPU or memory counts as 100m and 200Mi.
func scoringRequests(pod *corev1.Pod) (milliCPU, memory int64) {
	l := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{NonMissingContainerRequests: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(defaultMilliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(defaultMemory, resource.DecimalSI),
	}})
	cpu, mem := l[corev1.ResourceCPU], l[corev1.ResourceMemory]
	return cpu.MilliValue(), mem.Value()
}

// insufficient lists the NodeResourcesFit reasons a node with alloc and
// used (and pods of allowed) gives a pod requesting req, in the plugin's
// order, and whether preemption could resolve them: a request larger than
// the whole node cannot be.
func insufficient(req, alloc, used amounts, pods, allowed int) status {
	var s status
	s.resolvable = true
	if pods+1 > allowed {
		s.reasons = append(s.reasons, reasonTooManyPods)
	}
	if req.MilliCPU == 0 && req.Memory == 0 && req.Ephemeral == 0 && len(req.Scalar) == 0 {
		return s
	}
	check := func(name string, want, have, inUse int64) {
		if want > 0 && want > have-inUse {
			s.reasons = append(s.reasons, "Insufficient "+name)
			if want > have {
				s.resolvable = false
			}
		}
	}
	check("cpu", req.MilliCPU, alloc.MilliCPU, used.MilliCPU)
	check("memory", req.Memory, alloc.Memory, used.Memory)
	check("ephemeral-storage", req.Ephemeral, alloc.Ephemeral, used.Ephemeral)
	for _, x := range req.Scalar {
		check(string(x.Name), x.Value, alloc.Scalar.get(x.Name), used.Scalar.get(x.Name))
	}
	return s
}

// fits is insufficient without the reasons, for the hot path.
func fits(req, alloc, used amounts, pods, allowed int) bool {
	if pods+1 > allowed {
		return false
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU ||
		req.Memory > 0 && req.Memory > alloc.Memory-used.Memory ||
		req.Ephemeral > 0 && req.Ephemeral > alloc.Ephemeral-used.Ephemeral {
		return false
	}
	for _, x := range req.Scalar {
		if x.Value > 0 && x.Value > alloc.Scalar.get(x.Name)-used.Scalar.get(x.Name) {
			return false
		}
	}
	return true
}

// FormatCPU and FormatMemory render amounts for people (the reports
// and explanations share them).
func FormatCPU(m int64) string {
	s := strconv.FormatFloat(float64(m)/1000, 'f', 2, 64)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

func FormatMemory(b int64) string {
	const gi, mi = 1 << 30, 1 << 20
	switch {
	case b >= gi:
		return trimFloat(float64(b)/gi) + "Gi"
	case b >= mi:
		return trimFloat(float64(b)/mi) + "Mi"
	}
	return fmt.Sprint(b)
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}
