package auditnetwork

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/test/controlplane"
)

// TestAuditDualStackServices runs a dual-stack kube-apiserver: it decides
// the families of each Service (PreferDualStack without ipFamilies gets
// both, which lint of the manifest cannot know), and audit reports the
// live objects. The Windows pool's nodes carry flannel's vxlan backend,
// so both rules name it as an overlay pool; the IPv4 Service and the
// dual-stack Service in front of Linux pods stay quiet.
func TestAuditDualStackServices(t *testing.T) {
	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true,
		ExtraAPIServerFlags: []string{"--service-cluster-ip-range=10.0.0.0/24,fd00:10:96::/112"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := cp.Client
	vxlan := map[string]string{"flannel.alpha.coreos.com/backend-type": "vxlan"}
	for _, n := range []*corev1.Node{node("lin-1", "linux", "sys", vxlan), node("win-1", "windows", "winvx", vxlan), node("win-2", "windows", "winvx", vxlan)} {
		if _, err := cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := cp.CreateNamespace(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	deploy := func(name, os string) {
		spec := corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.OSName(os)}, NodeSelector: map[string]string{corev1.LabelOSStable: os},
			Containers: []corev1.Container{{Name: name, Image: "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022"}}}
		if os == "windows" {
			spec.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		} else {
			spec.Containers[0].Image = "nginx:1.27"
		}
		one := int32(1)
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}, Spec: spec}}}
		if _, err := c.AppsV1().Deployments("shop").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deploy("api", "windows")
	deploy("web", "linux")
	prefer, require, single := corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack
	svc := func(name, app string, policy *corev1.IPFamilyPolicy, families ...corev1.IPFamily) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": app}, IPFamilyPolicy: policy, IPFamilies: families,
				Ports: []corev1.ServicePort{{Port: 80}}}}
		got, err := c.CoreV1().Services("shop").Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// The API server gives PreferDualStack both families on a dual-stack
	// cluster: the manifest alone (no ipFamilies) is not reported by lint.
	if got := svc("api-prefer", "api", &prefer); len(got.Spec.IPFamilies) != 2 {
		t.Fatalf("PreferDualStack Service got families %v from a dual-stack API server, want both", got.Spec.IPFamilies)
	}
	svc("api-require", "api", &require)
	svc("api-v6", "api", &single, corev1.IPv6Protocol)
	if got := svc("api-v4", "api", nil); len(got.Spec.IPFamilies) != 1 || got.Spec.IPFamilies[0] != corev1.IPv4Protocol {
		t.Fatalf("Service without a policy got families %v, want [IPv4]", got.Spec.IPFamilies)
	}
	svc("web-dual", "web", &require)

	findings, stderr := audit(ctx, t, cp)
	var got []string
	for _, f := range findings {
		if f.Rule != "windows-service-dual-stack" && f.Rule != "windows-service-ipv6-single-stack" {
			continue
		}
		if !strings.Contains(f.Message, `pool "winvx" runs an overlay network`) {
			t.Errorf("%s finding %q does not name the vxlan pool as overlay", f.Rule, f.Message)
		}
		got = append(got, f.Rule+" "+f.Object.Name)
	}
	sort.Strings(got)
	want := []string{"windows-service-dual-stack api-prefer", "windows-service-dual-stack api-require", "windows-service-ipv6-single-stack api-v6"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s\nstderr: %s", d, stderr)
	}
}
