package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

func inPool(name string) nodeOpt {
	return func(n *corev1.Node) { n.Labels["agentpool"] = name }
}

func annotated(k string) nodeOpt {
	return func(n *corev1.Node) { n.Annotations = map[string]string{k: "x"} }
}

// daemonPod is a pod of a DaemonSet on a node.
func dsPod(ds, image, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: ds + "-" + node, Namespace: "kube-system",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: image}}}}
}

func TestPoolNetworks(t *testing.T) {
	t.Parallel()
	s := &live.Snapshot{
		Nodes: []*corev1.Node{
			node("lin-1", "linux", inPool("sys"), annotated("flannel.alpha.coreos.com/backend-type")),
			node("flan-1", "windows", inPool("flan"), annotated("flannel.alpha.coreos.com/backend-type")),
			node("flan-2", "windows", inPool("flan"), annotated("flannel.alpha.coreos.com/public-ip")),
			node("cal-1", "windows", inPool("cal")),
			node("az-1", "windows", inPool("az")),
			node("aznpm-1", "windows", inPool("aznpm")),
			node("mixed-1", "windows", inPool("mixed"), annotated("projectcalico.org/IPv4Address")),
			node("mixed-2", "windows", inPool("mixed"), annotated("flannel.alpha.coreos.com/backend-type")),
			node("none-1", "windows", inPool("none")),
		},
		Pods: []*corev1.Pod{
			dsPod("calico-node-windows", "docker.io/calico/node-windows:v3.29.0", "cal-1"),
			dsPod("azure-cns-win", "mcr.microsoft.com/containernetworking/azure-cns:v1.6.0", "az-1"),
			dsPod("azure-cns-win", "mcr.microsoft.com/containernetworking/azure-cns:v1.6.0", "aznpm-1"),
			dsPod("azure-npm-win", "mcr.microsoft.com/containernetworking/azure-npm:v1.5.0", "aznpm-1"),
			// A pod without a DaemonSet owner says nothing.
			{ObjectMeta: metav1.ObjectMeta{Name: "calico-test"}, Spec: corev1.PodSpec{NodeName: "none-1", Containers: []corev1.Container{{Image: "calico/node-windows"}}}},
		},
	}
	got := map[string]string{}
	for _, p := range s.Cluster().Pools {
		enf, known := p.EnforcesNetworkPolicy()
		v := p.CNI + " "
		switch {
		case !known:
			v += "unknown"
		case enf:
			v += "enforced"
		default:
			v += "not enforced"
		}
		got[p.Name] = v
	}
	want := map[string]string{
		"sys":   " unknown", // Linux pools are not read
		"flan":  "flannel not enforced",
		"cal":   "calico enforced",
		"az":    "azure unknown",
		"aznpm": "azure enforced",
		"mixed": " unknown",
		"none":  " unknown",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pools (-want +got):\n%s", d)
	}
}

// flannel's backend-type annotation gives the pool's network mode: vxlan
// is overlay, host-gw l2bridge; nodes that disagree leave it unknown.
func TestPoolNetworkMode(t *testing.T) {
	t.Parallel()
	backend := func(b string) nodeOpt {
		return func(n *corev1.Node) { n.Annotations = map[string]string{"flannel.alpha.coreos.com/backend-type": b} }
	}
	s := &live.Snapshot{Nodes: []*corev1.Node{
		node("vx-1", "windows", inPool("vx"), backend("vxlan")),
		node("vx-2", "windows", inPool("vx"), backend("vxlan")),
		node("gw-1", "windows", inPool("gw"), backend("host-gw")),
		node("mix-1", "windows", inPool("mix"), backend("vxlan")),
		node("mix-2", "windows", inPool("mix"), backend("host-gw")),
		node("cal-1", "windows", inPool("cal"), annotated("projectcalico.org/IPv4Address")),
	}}
	got := map[string]string{}
	for _, p := range s.Cluster().PoolsOf("windows") {
		got[p.Name] = p.CNI + " " + p.Mode()
	}
	want := map[string]string{"vx": "flannel overlay", "gw": "flannel l2bridge", "mix": "flannel ", "cal": "calico "}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pools (-want +got):\n%s", d)
	}
}

// The NetworkPolicy rule runs in audit with the pools read from the nodes.
func TestAuditNetworkPolicyOnFlannel(t *testing.T) {
	t.Parallel()
	win := deploy("iis", corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "windows"},
		Tolerations: []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpExists}},
		Containers:  []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}}})
	win.Spec.Template.Labels = map[string]string{"app": "iis"}
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny", Namespace: "shop"}}
	for _, tc := range []struct {
		name string
		ann  string
		want bool
	}{{"flannel", "flannel.alpha.coreos.com/backend-type", true}, {"calico", "projectcalico.org/IPv4Address", false}, {"unknown", "example.com/x", false}} {
		s := &live.Snapshot{Server: "v1.36.3",
			Nodes:           []*corev1.Node{node("lin-1", "linux"), node("lin-2", "linux"), node("win-1", "windows", annotated(tc.ann)), node("win-2", "windows", annotated(tc.ann))},
			Deployments:     []*appsv1.Deployment{win},
			NetworkPolicies: []*networkingv1.NetworkPolicy{np}}
		res, err := Run(context.Background(), s, Options{Rules: []*rule.Rule{rules.WindowsNetworkPolicyNotEnforced}, NoSimulation: true})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range res.Findings {
			if f.Rule == rules.WindowsNetworkPolicyNotEnforced.ID {
				msgs = append(msgs, f.Message)
			}
		}
		if got := len(msgs) > 0; got != tc.want {
			t.Errorf("%s: findings %q, want some: %v", tc.name, msgs, tc.want)
		}
		if tc.want && (len(msgs) != 1 || !strings.Contains(msgs[0], "(cni flannel) does not enforce NetworkPolicy")) {
			t.Errorf("%s: findings %q", tc.name, msgs)
		}
	}
}
