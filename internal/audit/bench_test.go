package audit

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rules"
)

// syntheticSnapshot is the benchmark cluster of test/bench/audit held in
// memory: nodes, a third Windows, Deployments with a ReplicaSet each, and
// their pods bound round-robin to nodes of their OS.
func syntheticSnapshot(nodes, pods, perWorkload int) *live.Snapshot {
	s := &live.Snapshot{Server: "v1.36.3"}
	var lin, win []string
	for i := range nodes {
		n := node(fmt.Sprintf("n-%04d", i), "linux")
		if i%3 == 0 {
			n = node(fmt.Sprintf("w-%04d", i), "windows")
			win = append(win, n.Name)
		} else {
			lin = append(lin, n.Name)
		}
		n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("15"), corev1.ResourceMemory: resource.MustParse("60Gi"), corev1.ResourcePods: resource.MustParse("110")}
		s.Nodes = append(s.Nodes, n)
	}
	for w := 0; w*perWorkload < pods; w++ {
		windows := w%3 == 0
		spec := corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/api:1", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}}}}}
		pool := lin
		if windows {
			spec.NodeSelector = map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: "10.0.20348"}
			spec.OS = &corev1.PodOS{Name: corev1.Windows}
			spec.Tolerations = []corev1.Toleration{{Key: "os", Value: "windows", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}}
			spec.Containers[0].Image = "mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022"
			pool = win
		}
		name := fmt.Sprintf("w%04d", w)
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench", UID: types.UID("d-" + name)},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(perWorkload)), Template: corev1.PodTemplateSpec{Spec: spec}}}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-x", Namespace: "bench", UID: types.UID("r-" + name),
			OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: name, UID: d.UID, Controller: ptr.To(true)}}}, Spec: appsv1.ReplicaSetSpec{Template: d.Spec.Template}}
		s.Deployments, s.ReplicaSets = append(s.Deployments, d), append(s.ReplicaSets, rs)
		for r := range perWorkload {
			i := w*perWorkload + r
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", name, i), Namespace: "bench", UID: types.UID(fmt.Sprintf("p-%d", i)),
				OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}}, Spec: *spec.DeepCopy()}
			p.Spec.NodeName = pool[i%len(pool)]
			p.Status.Phase = corev1.PodRunning
			s.Pods = append(s.Pods, p)
		}
	}
	return s
}

// BenchmarkRun judges the benchmark cluster (2,000 nodes, 50,000 pods)
// once read: node rules, lint over the Deployments, the simulation with
// the pods placed and the headroom of every Windows workload.
func BenchmarkRun(b *testing.B) {
	s := syntheticSnapshot(2000, 50000, 50)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(b.Context(), s, Options{Rules: rules.Suite()}); err != nil {
			b.Fatal(err)
		}
	}
}
