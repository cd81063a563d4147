package auditnetwork

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/test/controlplane"
)

func node(name, os, pool string, annotations map[string]string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations,
		Labels: map[string]string{corev1.LabelOSStable: os, "agentpool": pool}}}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", ContainerRuntimeVersion: "containerd://2.0.2", OperatingSystem: os, Architecture: "amd64"}
	if os == "windows" {
		n.Labels[corev1.LabelWindowsBuild] = "10.0.20348"
		n.Status.NodeInfo.KernelVersion = "10.0.20348.2966"
		n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

// finding is a finding of winkube audit -o json.
type finding struct {
	Rule, Message string
	Object        struct{ Name string }
}

// audit runs winkube audit -o json against the control plane and returns
// its findings and standard error.
func audit(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane) ([]finding, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(ctx, []string{"audit", "--kubeconfig", cp.KubeconfigPath, "-o", "json", "--no-simulation"}, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	var rep struct{ Findings []finding }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("audit output is not JSON (exit %d): %v\n%s\nstderr: %s", code, err, out.String(), errb.String())
	}
	return rep.Findings, errb.String()
}

// TestAuditReadsPoolCNI: a pool whose nodes carry flannel's annotations
// does not enforce NetworkPolicy, so a policy over Windows pods is
// reported naming it; a pool running Calico's Windows DaemonSet is not
// named, and neither is a pool nothing identifies.
func TestAuditReadsPoolCNI(t *testing.T) {
	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := cp.Client
	flannel := map[string]string{"flannel.alpha.coreos.com/backend-type": "host-gw"}
	for _, n := range []*corev1.Node{
		node("lin-1", "linux", "sys", flannel), node("lin-2", "linux", "sys", flannel),
		node("flan-1", "windows", "winflan", flannel), node("flan-2", "windows", "winflan", flannel),
		node("cal-1", "windows", "wincal", nil),
		node("other-1", "windows", "winother", nil),
	} {
		if _, err := cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"shop", "calico-system"} {
		if err := cp.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	// Calico's Windows agent, as its DaemonSet's pod bound to cal-1.
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "calico-node-windows", Namespace: "calico-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node-windows"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "calico-node-windows"}},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "windows"}, HostNetwork: true,
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{{Name: "node", Image: "docker.io/calico/node-windows:v3.29.0"}}}}}}
	ds, err := c.AppsV1().DaemonSets("calico-system").Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "calico-node-windows-x1", Namespace: "calico-system", Labels: ds.Spec.Template.Labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: types.UID(ds.UID), Controller: &yes}}},
		Spec: *ds.Spec.Template.Spec.DeepCopy()}
	pod.Spec.NodeName = "cal-1"
	if _, err := c.CoreV1().Pods("calico-system").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	replicas := int32(2)
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "iis", Namespace: "shop"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "iis"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "iis"}},
				Spec: corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}, NodeSelector: map[string]string{corev1.LabelOSStable: "windows"},
					Tolerations: []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}},
					Containers:  []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}}}}}}
	if _, err := c.AppsV1().Deployments("shop").Create(ctx, web, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web-ingress", Namespace: "shop"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "iis"}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	if _, err := c.NetworkingV1().NetworkPolicies("shop").Create(ctx, np, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	findings, stderr := audit(ctx, t, cp)
	var got []string
	for _, f := range findings {
		if f.Rule == "windows-network-policy-not-enforced" {
			got = append(got, f.Message)
		}
	}
	if len(got) != 1 {
		t.Fatalf("windows-network-policy-not-enforced findings %q, want one\nstderr: %s", got, stderr)
	}
	if !strings.Contains(got[0], `pool "winflan" (cni flannel) does not enforce NetworkPolicy`) {
		t.Errorf("finding %q does not name the flannel pool", got[0])
	}
	for _, other := range []string{"wincal", "winother", "sys"} {
		if strings.Contains(got[0], `"`+other+`"`) {
			t.Errorf("finding %q names pool %s", got[0], other)
		}
	}
}
