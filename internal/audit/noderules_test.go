package audit

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
)

type nodeOpt func(*corev1.Node)

func node(name, os string, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: os}}}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Gi")}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("12Gi")}
	n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", ContainerRuntimeVersion: "containerd://2.0.0"}
	if os == "windows" {
		n.Labels[corev1.LabelWindowsBuild] = "10.0.20348"
		n.Status.NodeInfo.KernelVersion = "10.0.20348.2966"
		n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func label(v string) nodeOpt  { return func(n *corev1.Node) { n.Labels[corev1.LabelWindowsBuild] = v } }
func kernel(v string) nodeOpt { return func(n *corev1.Node) { n.Status.NodeInfo.KernelVersion = v } }
func runtime(v string) nodeOpt {
	return func(n *corev1.Node) { n.Status.NodeInfo.ContainerRuntimeVersion = v }
}
func kubelet(v string) nodeOpt { return func(n *corev1.Node) { n.Status.NodeInfo.KubeletVersion = v } }
func untainted(n *corev1.Node) { n.Spec.Taints = nil }
func cordoned(n *corev1.Node)  { n.Spec.Unschedulable = true }
func noLabel(n *corev1.Node)   { delete(n.Labels, corev1.LabelWindowsBuild) }
func allocatable(v string) nodeOpt {
	return func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse(v) }
}
func notReady(n *corev1.Node) {
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."}}
}

// pool puts a node in an AKS-style pool.
func pool(v string) nodeOpt { return func(n *corev1.Node) { n.Labels["agentpool"] = v } }

// configz is a live kubelet configuration with an eviction threshold;
// the nodes of hybrid() and node() share the pool of their instance type
// and build.
func configz(node, memoryAvailable string) *live.Kubelet {
	return &live.Kubelet{Node: node, Config: []byte(`{"kind":"KubeletConfiguration","cgroupsPerQOS":false,"evictionHard":{"memory.available":"` + memoryAvailable + `"},"podCIDR":"` + node + `"}`)}
}

func memory(node string, workingSet, available uint64) *live.Kubelet {
	return &live.Kubelet{Node: node, Stats: &live.NodeStats{MemoryWorkingSetBytes: &workingSet, MemoryAvailableBytes: &available}}
}

func disk(node string, avail, capacity uint64) *live.Kubelet {
	avail, capacity = avail<<30, capacity<<30
	return &live.Kubelet{Node: node, Stats: &live.NodeStats{FsAvailableBytes: &avail, FsCapacityBytes: &capacity}}
}

func hybrid(extra ...*corev1.Node) []*corev1.Node {
	return append([]*corev1.Node{node("lin-1", "linux"), node("lin-2", "linux"), node("win-a", "windows"), node("win-b", "windows")}, extra...)
}

func deploy(name string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
}

var unpinnedLinux = deploy("legacy", corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}})
var pinnedLinux = deploy("api", corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"}, Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}})

func boundPod(name, node string, os corev1.OSName) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: corev1.PodSpec{NodeName: node, OS: &corev1.PodOS{Name: os}, Containers: []corev1.Container{{Name: "c", Image: "example.com/app:1"}}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

// fired runs one node rule and returns the objects it reported.
func fired(t *testing.T, nr *rule.Rule, s *live.Snapshot) []string {
	t.Helper()
	if s.Server == "" {
		s.Server = "v1.36.3"
	}
	m, _ := live.ModelFor(s.Server)
	tops, err := live.TopLevel(s, live.NewOwners(s))
	if err != nil {
		t.Fatal(err)
	}
	var out []rule.Finding
	nr.Run.(NodeRun)(Derive(s, m, tops), emitter{rule: nr, out: &out})
	var refs []string
	for _, f := range out {
		if f.Message == "" || f.Rule != nr.ID {
			t.Errorf("%s: finding without message or with rule %q", nr.ID, f.Rule)
		}
		refs = append(refs, f.Object.Ref())
	}
	sort.Strings(refs)
	return refs
}

func TestNodeRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule *rule.Rule
		fire *live.Snapshot
		want []string
		calm *live.Snapshot
	}{
		{windowsNodeUntainted,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", untainted)), Deployments: []*appsv1.Deployment{unpinnedLinux}}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", untainted)), Deployments: []*appsv1.Deployment{pinnedLinux}}},
		{windowsNodeBuildLabelMissing,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", noLabel))}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid()}},
		{windowsNodeBuildLabelMismatch,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", label("10.0.17763")))}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", noLabel))}},
		{windowsNodeUnsupportedBuild,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", label("10.0.17763"), kernel("10.0.17763.6532")))}, []string{"Node/win-c"},
			&live.Snapshot{Server: "v1.30.2", Nodes: hybrid(node("win-c", "windows", label("10.0.17763"), kernel("10.0.17763.6532")))}},
		{windowsNodeLowReserve,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", allocatable("14.5Gi")))}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("lin-3", "linux", allocatable("15.5Gi")))}},
		{windowsNodeContainerdOld,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", runtime("containerd://1.6.21")))}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", runtime("containerd://1.7.0")), node("lin-3", "linux", runtime("containerd://1.6.0")))}},
		{kubeletVersionSkew,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", kubelet("v1.32.0")), node("lin-3", "linux", kubelet("v1.37.0")))}, []string{"Node/lin-3", "Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", kubelet("v1.33.5")))}},
		{hybridTooFewNodes,
			&live.Snapshot{Nodes: []*corev1.Node{node("lin-1", "linux"), node("lin-2", "linux", cordoned), node("win-a", "windows"), node("win-b", "windows", notReady)}}, []string{"Cluster/cluster", "Cluster/cluster"},
			&live.Snapshot{Nodes: []*corev1.Node{node("lin-1", "linux")}}},
		{linuxPodOnWindowsNode,
			&live.Snapshot{Nodes: hybrid(), Pods: []*corev1.Pod{boundPod("p", "win-a", corev1.Linux)}}, []string{"Pod/shop/p"},
			&live.Snapshot{Nodes: hybrid(), Pods: []*corev1.Pod{boundPod("p", "lin-1", corev1.Linux)}}},
		{windowsPodOnLinuxNode,
			&live.Snapshot{Nodes: hybrid(), Pods: []*corev1.Pod{boundPod("p", "lin-1", corev1.Windows)}}, []string{"Pod/shop/p"},
			&live.Snapshot{Nodes: hybrid(), Pods: []*corev1.Pod{boundPod("p", "win-a", corev1.Windows)}}},
		{windowsNodeNotReady,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", notReady))}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("lin-3", "linux", notReady))}},
		{windowsNodeConfigDrift,
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows")), Kubelets: []*live.Kubelet{configz("win-a", "500Mi"), configz("win-b", "500Mi"), configz("win-c", "100Mi")}}, []string{"Node/win-c"},
			&live.Snapshot{Nodes: hybrid(node("win-c", "windows", pool("other"))), Kubelets: []*live.Kubelet{configz("win-a", "500Mi"), configz("win-b", "500Mi"), configz("win-c", "100Mi")}}},
		{windowsNodeMemoryPressure,
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{memory("win-a", 13<<30, 3<<30), memory("win-b", 10<<30, 300<<20)}}, []string{"Node/win-a", "Node/win-b"},
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{memory("win-a", 11<<30, 5<<30)}}},
		{windowsNodeDiskPressure,
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{disk("win-a", 10, 100)}}, []string{"Node/win-a"},
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{disk("win-a", 40, 100)}}},
		{kubeletUnreadable,
			&live.Snapshot{Nodes: hybrid(), KubeletAccess: &live.KubeletAccess{Path: "direct", Nodes: 2}, Kubelets: []*live.Kubelet{
				{Node: "win-a", Unread: []live.Unread{{Endpoint: "/configz", Permission: "get nodes/configz", Err: "HTTP 403: Forbidden"}}}, {Node: "win-b"}}}, []string{"Node/win-a"},
			&live.Snapshot{Nodes: hybrid(), KubeletAccess: &live.KubeletAccess{Path: "direct", Nodes: 2}, Kubelets: []*live.Kubelet{{Node: "win-a"}, {Node: "win-b"}}}},
	}
	for i, nr := range nodeLogRules {
		// Fires on every pattern of its signature; calm on the next
		// signature's lines.
		other := nodeLogRules[(i+1)%len(nodeLogRules)]
		tests = append(tests, struct {
			rule *rule.Rule
			fire *live.Snapshot
			want []string
			calm *live.Snapshot
		}{nr,
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{logsOf("win-a", nr)}}, []string{"Node/win-a"},
			&live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{logsOf("win-a", other), {Node: "win-b"}}}})
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.rule.ID] = true
		if diff := cmp.Diff(tt.want, fired(t, tt.rule, tt.fire)); diff != "" {
			t.Errorf("%s on the firing fixture (-want +got):\n%s", tt.rule.ID, diff)
		}
		if got := fired(t, tt.rule, tt.calm); len(got) != 0 {
			t.Errorf("%s fired on the calm fixture: %v", tt.rule.ID, got)
		}
	}
	for _, nr := range NodeRules() {
		if !covered[nr.ID] {
			t.Errorf("node rule %s has no fixture", nr.ID)
		}
	}
}
