package simulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestAdmitRuntimeClass(t *testing.T) {
	t.Parallel()
	winToleration := corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}
	overhead := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
	rcs := map[string]*nodev1.RuntimeClass{
		"win": {ObjectMeta: metav1.ObjectMeta{Name: "win"}, Handler: "runhcs-wcow-process", Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"kubernetes.io/os": "windows"}, Tolerations: []corev1.Toleration{winToleration}}},
		"heavy": {ObjectMeta: metav1.ObjectMeta{Name: "heavy"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: overhead}},
	}
	tests := []struct {
		name      string
		pod       func(*corev1.PodSpec)
		forbidden string
		selector  map[string]string
		tols      int
		overhead  corev1.ResourceList
	}{
		{"no class", func(*corev1.PodSpec) {}, "", nil, 0, nil},
		{"unknown class", func(s *corev1.PodSpec) { s.RuntimeClassName = ptr.To("nope") }, `pod rejected: RuntimeClass "nope" not found`, nil, 0, nil},
		{"scheduling merged", func(s *corev1.PodSpec) { s.RuntimeClassName = ptr.To("win") },
			"", map[string]string{"kubernetes.io/os": "windows"}, 1, nil},
		{"same selector twice is no conflict, same toleration not doubled", func(s *corev1.PodSpec) {
			s.RuntimeClassName = ptr.To("win")
			s.NodeSelector = map[string]string{"kubernetes.io/os": "windows", "pool": "a"}
			s.Tolerations = []corev1.Toleration{winToleration}
		}, "", map[string]string{"kubernetes.io/os": "windows", "pool": "a"}, 1, nil},
		{"conflicting selector", func(s *corev1.PodSpec) {
			s.RuntimeClassName = ptr.To("win")
			s.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
		}, "conflict: runtimeClass.scheduling.nodeSelector[kubernetes.io/os] = windows; pod.spec.nodeSelector[kubernetes.io/os] = linux", nil, 0, nil},
		{"overhead set", func(s *corev1.PodSpec) { s.RuntimeClassName = ptr.To("heavy") }, "", nil, 0, overhead},
		{"overhead that differs", func(s *corev1.PodSpec) {
			s.RuntimeClassName = ptr.To("heavy")
			s.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead", nil, 0, nil},
		{"overhead without one in the class", func(s *corev1.PodSpec) {
			s.RuntimeClassName = ptr.To("win")
			s.Overhead = overhead
		}, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead", nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := podWith(tt.pod)
			got := admitRuntimeClass(pod, rcs)
			if got != tt.forbidden {
				t.Fatalf("refusal = %q, want %q", got, tt.forbidden)
			}
			if got != "" {
				return
			}
			if diff := cmp.Diff(tt.selector, pod.Spec.NodeSelector); diff != "" {
				t.Errorf("nodeSelector (-want +got):\n%s", diff)
			}
			if len(pod.Spec.Tolerations) != tt.tols {
				t.Errorf("tolerations = %v, want %d", pod.Spec.Tolerations, tt.tols)
			}
			if !cmp.Equal(tt.overhead, pod.Spec.Overhead, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
				t.Errorf("overhead = %v, want %v", pod.Spec.Overhead, tt.overhead)
			}
		})
	}
}

func TestAdmitPriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pod  func(*corev1.PodSpec)
		want string
	}{
		{"nothing set", func(*corev1.PodSpec) {}, ""},
		{"priority matching the default", func(s *corev1.PodSpec) { s.Priority = ptr.To[int32](0) }, ""},
		{"own priority", func(s *corev1.PodSpec) { s.Priority = ptr.To[int32](5) },
			"the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"},
		{"system class computes its value", func(s *corev1.PodSpec) {
			s.PriorityClassName = "system-node-critical"
			s.Priority = ptr.To[int32](1)
		}, "the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 2000001000 from the given PriorityClass name"},
		{"own preemption policy", func(s *corev1.PodSpec) { s.PreemptionPolicy = ptr.To(corev1.PreemptNever) },
			"the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"},
		{"a class winkube does not know is left alone", func(s *corev1.PodSpec) {
			s.PriorityClassName = "batch-low"
			s.PreemptionPolicy = ptr.To(corev1.PreemptNever)
		}, ""},
	}
	for _, tt := range tests {
		if got := admitPriority(podWith(tt.pod)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestValidationMessages(t *testing.T) {
	t.Parallel()
	yaml := yamlDocs(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  template:
    spec:
      os: {name: windows}
      hostPID: true
      containers:
      - name: c
        image: mcr.microsoft.com/windows/nanoserver:ltsc2022
        securityContext: {privileged: true}
`, podYAML("p", `
os: {name: windows}
securityContext: {runAsUser: 1000}
containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`), podYAML("forbidden-first", `
os: {name: windows}
runtimeClassName: missing
securityContext: {runAsUser: 1000}
containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`))
	res := simulateOn(t, nil, yaml, Input{})
	want := []struct{ pod, msg string }{
		{"web-0", `Deployment.apps "web" is invalid: [spec.template.spec.hostPID: Forbidden: cannot be set for a windows pod, spec.template.spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod]`},
		{"web-1", `Deployment.apps "web" is invalid: [spec.template.spec.hostPID: Forbidden: cannot be set for a windows pod, spec.template.spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod]`},
		{"p", `Pod "p" is invalid: spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod`},
		// A bare Pod meets admission plugins before validation.
		{"forbidden-first", `pods "forbidden-first" is forbidden: pod rejected: RuntimeClass "missing" not found`},
	}
	if len(res.Pods) != len(want) {
		t.Fatalf("got %d pods, want %d", len(res.Pods), len(want))
	}
	for i, w := range want {
		p := res.Pods[i]
		if p.Pod != w.pod || !p.Rejected || p.RejectMessage != w.msg || p.Node != "" || p.Pending {
			t.Errorf("pod %d = %s rejected=%v %q\nwant %s %q", i, p.Pod, p.Rejected, p.RejectMessage, w.pod, w.msg)
		}
	}
}
