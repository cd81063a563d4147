package audit

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Facts is what the node rules read, derived once from a snapshot.
type Facts struct {
	Snapshot *live.Snapshot
	Model    winsupport.Model
	// Server is the API server's minor version.
	Server winsupport.Version
	// Workloads are the top-level workloads, with their targeting.
	Workloads []Workload
	// PodOS is the OS each bound pod is for (Unknown when nothing says).
	PodOS map[*corev1.Pod]target.OS
}

// Workload is one top-level workload and where it may run.
type Workload struct {
	Object *manifest.Object
	Facts  target.Facts
}

// NodeOS is the node's operating system.
func NodeOS(n *corev1.Node) string { return cluster.NodeOS(n) }

// Windows reports whether n is a Windows node.
func Windows(n *corev1.Node) bool { return NodeOS(n) == "windows" }

// Ready returns the node's Ready condition, or nil.
func Ready(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// Schedulable reports whether n is Ready and not cordoned.
func Schedulable(n *corev1.Node) bool {
	c := Ready(n)
	return c != nil && c.Status == corev1.ConditionTrue && !n.Spec.Unschedulable
}

// nodeObject is the identity findings on a node carry.
func nodeObject(n *corev1.Node) *manifest.Object {
	return &manifest.Object{APIVersion: "v1", Kind: "Node", Name: n.Name}
}

// podObject is the identity findings on a pod carry.
func podObject(p *corev1.Pod) *manifest.Object {
	return &manifest.Object{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
}

// emitter collects findings for one rule.
type emitter struct {
	rule *rule.Rule // as configured
	out  *[]rule.Finding
}

func (e emitter) report(obj *manifest.Object, path, msg, hint string) {
	*e.out = append(*e.out, rule.Finding{Rule: e.rule.ID, Severity: e.rule.Severity, Message: msg, Hint: hint, Path: path, Object: obj})
}

func nodeClusterIdentity() manifest.Object {
	return manifest.Object{APIVersion: manifest.APIVersion, Kind: "Cluster", Name: "cluster"}
}
