package simulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podWith(mutate func(*corev1.PodSpec)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	mutate(&p.Spec)
	return p
}

func required(exprs ...corev1.NodeSelectorRequirement) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}}}
}

func TestStaticFilters(t *testing.T) {
	t.Parallel()
	windowsTaint := corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
	noExec := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}
	soft := corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}
	win := testNode("win", map[string]string{"kubernetes.io/os": "windows", "gen": "5"}, []corev1.Taint{windowsTaint}, "4", "8Gi", 110)
	lin := testNode("lin", map[string]string{"gen": "3"}, nil, "4", "8Gi", 110)
	cordoned := testNode("cordoned", nil, nil, "4", "8Gi", 110)
	cordoned.Spec.Unschedulable = true
	tainted := testNode("tainted", nil, []corev1.Taint{noExec}, "4", "8Gi", 110)
	preferred := testNode("preferred", nil, []corev1.Taint{soft, soft}, "4", "8Gi", 110)
	tolerateWindows := func(s *corev1.PodSpec) {
		s.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	tests := []struct {
		name     string
		pod      func(*corev1.PodSpec)
		node     *corev1.Node
		reason   string // "" when the node passes
		prefer   int64
		affinity int64
	}{
		{"cordoned", func(*corev1.PodSpec) {}, cordoned, reasonUnschedulable, 0, 0},
		{"cordoned, tolerated", func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}}
		}, cordoned, "", 0, 0},
		{"NoSchedule taint", func(*corev1.PodSpec) {}, win, reasonTaints, 0, 0},
		{"NoSchedule taint tolerated, selector fine", tolerateWindows, win, "", 0, 0},
		{"NoExecute taint", func(*corev1.PodSpec) {}, tainted, reasonTaints, 0, 0},
		{"Exists without key tolerates all", func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}, tainted, "", 0, 0},
		{"PreferNoSchedule only scores", func(*corev1.PodSpec) {}, preferred, "", 2, 0},
		{"PreferNoSchedule tolerated", func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "soft", Operator: corev1.TolerationOpExists}}
		}, preferred, "", 0, 0},
		{"nodeSelector mismatch", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"kubernetes.io/os": "windows"} }, lin, reasonNodeAffinity, 0, 0},
		{"nodeSelector missing label", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": "x"} }, lin, reasonNodeAffinity, 0, 0},
		{"taint checked before selector", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"kubernetes.io/os": "linux"} }, win, reasonTaints, 0, 0},
		{"affinity In", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpIn, Values: []string{"3", "4"}})
		}, lin, "", 0, 0},
		{"affinity NotIn", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"3"}})
		}, lin, reasonNodeAffinity, 0, 0},
		{"affinity Exists", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpExists})
		}, lin, "", 0, 0},
		{"affinity DoesNotExist", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpDoesNotExist})
		}, lin, reasonNodeAffinity, 0, 0},
		{"affinity Gt", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}})
		}, lin, reasonNodeAffinity, 0, 0},
		{"affinity Lt", func(s *corev1.PodSpec) {
			s.Affinity = required(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}})
		}, lin, "", 0, 0},
		{"matchFields metadata.name", func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"other"}}}}}}}}
		}, lin, reasonNodeAffinity, 0, 0},
		{"preferred terms add their weights", func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 5, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: corev1.NodeSelectorOpExists}}}},
				{Weight: 7, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: corev1.NodeSelectorOpIn, Values: []string{"3"}}}}},
				{Weight: 11, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: corev1.NodeSelectorOpIn, Values: []string{"5"}}}}},
			}}}
		}, lin, "", 0, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := newSchedPod(podWith(tt.pod), false)
			st := staticFilters(sp, tt.node, version(36))
			got := ""
			if st.fail != nil {
				got = st.fail.reasons[0]
				if st.fail.resolvable {
					t.Errorf("static rejections are never resolvable by preemption")
				}
			}
			if got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
			if got == "" && (st.prefer != tt.prefer || st.affinity != tt.affinity) {
				t.Errorf("scores = prefer %d, affinity %d; want %d, %d", st.prefer, st.affinity, tt.prefer, tt.affinity)
			}
			if tt.reason == reasonTaints && st.taint == nil {
				t.Errorf("the untolerated taint is not recorded for the explanation")
			}
		})
	}
}

func TestInsufficient(t *testing.T) {
	t.Parallel()
	gpu := scalars{{Name: "example.com/gpu", Value: 1}}
	alloc := amounts{MilliCPU: 2000, Memory: 4 << 30, Ephemeral: 10 << 30, Scalar: gpu}
	tests := []struct {
		name       string
		req, used  amounts
		pods       int
		want       []string
		resolvable bool
	}{
		{"fits", amounts{MilliCPU: 1000}, amounts{MilliCPU: 1000}, 0, nil, true},
		{"cpu, preemption could free it", amounts{MilliCPU: 1500}, amounts{MilliCPU: 1000}, 1, []string{"Insufficient cpu"}, true},
		{"cpu beyond the node", amounts{MilliCPU: 3000}, amounts{}, 0, []string{"Insufficient cpu"}, false},
		{"cpu and memory in the plugin's order", amounts{MilliCPU: 3000, Memory: 5 << 30}, amounts{}, 0, []string{"Insufficient cpu", "Insufficient memory"}, false},
		{"ephemeral storage", amounts{Ephemeral: 11 << 30}, amounts{}, 0, []string{"Insufficient ephemeral-storage"}, false},
		{"extended resource", amounts{Scalar: scalars{{Name: "example.com/gpu", Value: 1}}}, amounts{Scalar: gpu}, 1, []string{"Insufficient example.com/gpu"}, true},
		{"unknown extended resource", amounts{Scalar: scalars{{Name: "example.com/fpga", Value: 1}}}, amounts{}, 0, []string{"Insufficient example.com/fpga"}, false},
		{"too many pods, even with no requests", amounts{}, amounts{}, 3, []string{reasonTooManyPods}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := insufficient(tt.req, alloc, tt.used, tt.pods, 3)
			if diff := cmp.Diff(tt.want, got.reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if len(tt.want) > 0 && got.resolvable != tt.resolvable {
				t.Errorf("resolvable = %v, want %v", got.resolvable, tt.resolvable)
			}
			if fits(tt.req, alloc, tt.used, tt.pods, 3) != (len(tt.want) == 0) {
				t.Errorf("fits disagrees with insufficient")
			}
		})
	}
}

func TestPortsFit(t *testing.T) {
	t.Parallel()
	port := func(ip string, proto corev1.Protocol, p int32) corev1.ContainerPort {
		return corev1.ContainerPort{HostIP: ip, Protocol: proto, HostPort: p, ContainerPort: 80}
	}
	tests := []struct {
		name string
		want corev1.ContainerPort
		used []corev1.ContainerPort
		fits bool
	}{
		{"free", port("", "", 8080), []corev1.ContainerPort{port("", "", 9090)}, true},
		{"same port, all addresses", port("", "", 8080), []corev1.ContainerPort{port("", corev1.ProtocolTCP, 8080)}, false},
		{"other protocol", port("", corev1.ProtocolUDP, 8080), []corev1.ContainerPort{port("", corev1.ProtocolTCP, 8080)}, true},
		{"two specific addresses", port("10.0.0.1", "", 8080), []corev1.ContainerPort{port("10.0.0.2", "", 8080)}, true},
		{"specific against all", port("10.0.0.1", "", 8080), []corev1.ContainerPort{port("0.0.0.0", "", 8080)}, false},
		{"all against specific", port("", "", 8080), []corev1.ContainerPort{port("10.0.0.2", "", 8080)}, false},
	}
	for _, tt := range tests {
		var used []hostPort
		for _, u := range tt.used {
			used = append(used, toHostPort(u))
		}
		if got := portsFit([]corev1.ContainerPort{tt.want}, used); got != tt.fits {
			t.Errorf("%s: fits = %v, want %v", tt.name, got, tt.fits)
		}
	}
}

func TestPodRequests(t *testing.T) {
	t.Parallel()
	always := corev1.ContainerRestartPolicyAlways
	cpu := func(v string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}}
	}
	tests := []struct {
		name string
		pod  func(*corev1.PodSpec)
		want int64
	}{
		{"containers add up", func(s *corev1.PodSpec) {
			s.Containers = []corev1.Container{{Name: "a", Resources: cpu("200m")}, {Name: "b", Resources: cpu("300m")}}
		}, 500},
		{"an init container larger than the app", func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "i", Resources: cpu("2")}}
			s.Containers = []corev1.Container{{Name: "a", Resources: cpu("500m")}}
		}, 2000},
		{"a sidecar adds to the app and to later init containers", func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: &always, Resources: cpu("300m")}, {Name: "i", Resources: cpu("1800m")}}
			s.Containers = []corev1.Container{{Name: "a", Resources: cpu("100m")}}
		}, 2100},
		{"overhead is added", func(s *corev1.PodSpec) {
			s.Containers = []corev1.Container{{Name: "a", Resources: cpu("1")}}
			s.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
		}, 1250},
	}
	for _, tt := range tests {
		if got := podRequests(podWith(tt.pod)).MilliCPU; got != tt.want {
			t.Errorf("%s: cpu = %dm, want %dm", tt.name, got, tt.want)
		}
	}
}
