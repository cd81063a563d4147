package live

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var evictionMemory = resource.MustParse("500Mi")

// MemoryPressure says how n's memory is under pressure, "" when it is not.
func MemoryPressure(n *corev1.Node, s *NodeStats) string {
	ws := int64(*s.MemoryWorkingSetBytes)
	alloc, capacity := n.Status.Allocatable.Memory(), n.Status.Capacity.Memory()
	var parts []string
	if !alloc.IsZero() && ws > alloc.Value() {
		over := ws - alloc.Value()
		reserve := capacity.Value() - alloc.Value()
		parts = append(parts, fmt.Sprintf("working set %s is above allocatable %s of capacity %s: %s of the %s reserved for the OS and node services is taken", GiB(*resource.NewQuantity(ws, resource.BinarySI)), GiB(*alloc), GiB(*capacity), GiB(*resource.NewQuantity(over, resource.BinarySI)), GiB(*resource.NewQuantity(reserve, resource.BinarySI))))
	}
	if a := s.MemoryAvailableBytes; a != nil && int64(*a) < evictionMemory.Value() {
		parts = append(parts, fmt.Sprintf("%s available, below the 500Mi hard eviction threshold", GiB(*resource.NewQuantity(int64(*a), resource.BinarySI))))
	}
	if len(parts) == 0 {
		return ""
	}
	msg := fmt.Sprintf("Windows node %s: %s", n.Name, strings.Join(parts, "; "))
	if !s.Time.IsZero() {
		msg += " (kubelet stats at " + s.Time.UTC().Format("2006-01-02T15:04:05Z") + ")"
	}
	return msg
}

// GiB writes a quantity in GiB with one decimal.
func GiB(q resource.Quantity) string {
	return fmt.Sprintf("%.1fGi", float64(q.Value())/(1<<30))
}
