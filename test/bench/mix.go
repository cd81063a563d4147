package bench

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
)

// Cluster is a hybrid cluster of n nodes: 70% Linux, 30% Windows in
// two builds, Windows tainted os=windows:NoSchedule, three zones.
func Cluster(n int) *cluster.Cluster {
	pool := func(name, os, build string, count int) cluster.Pool {
		p := cluster.Pool{Name: name, Count: count, OS: os, WindowsBuild: build, CPU: resource.MustParse("16"),
			Memory: resource.MustParse("64Gi"), MaxPods: 110, Zones: []string{"z1", "z2", "z3"}}
		if os == "windows" {
			p.Taints = []corev1.Taint{cluster.WindowsTaint}
		}
		return p
	}
	return &cluster.Cluster{Pools: []cluster.Pool{
		pool("linux", "linux", "", n*7/10),
		pool("ws2022", "windows", "10.0.20348", n*2/10),
		pool("ws2025", "windows", "10.0.26100", n-n*7/10-n*2/10),
	}}
}

// Templates returns the pod templates of workloads workloads: Linux
// services (60%), Windows services pinned to a build and tolerating the
// taint (20%), Linux pods spread over zones (10%) and pods restricted to
// two zones by node affinity (10%). Every pod fits somewhere.
func Templates(workloads int) []corev1.PodTemplateSpec {
	out := make([]corev1.PodTemplateSpec, workloads)
	for i := range out {
		name := fmt.Sprintf("w%d", i)
		t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}}
		c := corev1.Container{Name: "app", Image: "nginx:1.27", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(100+50*(i%4)), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(128+128*(i%3))<<20, resource.BinarySI),
		}}}
		spec := &t.Spec
		spec.NodeSelector = map[string]string{corev1.LabelOSStable: "linux"}
		switch i % 10 {
		case 6, 7:
			c.Image = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
			spec.NodeSelector = map[string]string{corev1.LabelOSStable: "windows", cluster.LabelWindowsBuild: "10.0.20348"}
			if i%10 == 7 {
				c.Image = "mcr.microsoft.com/windows/nanoserver:ltsc2025"
				spec.NodeSelector[cluster.LabelWindowsBuild] = "10.0.26100"
			}
			spec.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		case 8:
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: cluster.LabelZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: t.Labels}}}
		case 9:
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: cluster.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"z1", "z2"}}}}}}}}
		}
		spec.Containers = []corev1.Container{c}
		out[i] = t
	}
	return out
}
