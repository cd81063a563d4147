package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/rule"
)

func TestIPv6Only(t *testing.T) {
	t.Parallel()
	single, prefer := corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack
	cases := []struct {
		name string
		spec corev1.ServiceSpec
		path string // "" when not IPv6-only
	}{
		{"v6 families, no policy", corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}}, "spec.ipFamilies"},
		{"v6 families, single", corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}, IPFamilyPolicy: &single}, "spec.ipFamilies"},
		{"v6 families, prefer dual", corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}, IPFamilyPolicy: &prefer}, ""},
		{"both families", corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}}, ""},
		{"v4 families", corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}}, ""},
		{"v6 clusterIP", corev1.ServiceSpec{ClusterIP: "fd00::1"}, "spec.clusterIP"},
		{"v4-mapped clusterIP", corev1.ServiceSpec{ClusterIP: "::ffff:10.0.0.1"}, ""},
		{"v4 clusterIP", corev1.ServiceSpec{ClusterIP: "10.96.0.1"}, ""},
		{"headless", corev1.ServiceSpec{ClusterIP: "None"}, ""},
		{"v6 clusterIP, v4 families", corev1.ServiceSpec{ClusterIP: "fd00::1", IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}}, ""},
		{"nothing", corev1.ServiceSpec{}, ""},
	}
	for _, c := range cases {
		path, ok := ipv6Only(&corev1.Service{Spec: c.spec})
		if ok != (c.path != "") || (ok && path != c.path) {
			t.Errorf("%s: ipv6Only = %q, %v; want %q", c.name, path, ok, c.path)
		}
	}
}

func TestSvcBuildNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"10.0.17763": 17763, "10.0.20348.2461": 20348, "": 0, "10.0": 0, "10.0.x": 0} {
		if got := svcBuildNumber(in); got != want {
			t.Errorf("svcBuildNumber(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestGMSALegacyFix(t *testing.T) {
	t.Parallel()
	fs := findings(t, nil, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name: webapp1
        iis.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name: iis-spec
        gone.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name: other
        pod.alpha.windows.kubernetes.io/gmsa-credential-spec: '{}'
    spec:
      os: {name: windows}
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
`, LoadError, GMSAMissingCredentialSpecName)
	ann := "spec.template.metadata.annotations"
	want := map[string]*rule.Fix{
		ann + "[gone.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name]": nil, // no such container
		ann + "[iis.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name]": {
			Title: "move iis.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name into gmsaCredentialSpecName",
			Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.template.spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName", Value: "iis-spec"},
				{Op: rule.Remove, Path: ann + "[iis.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name]"},
			}},
		ann + "[pod.alpha.windows.kubernetes.io/gmsa-credential-spec]": nil, // contents name no resource
		ann + "[pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name]": {
			Title: "move pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name into gmsaCredentialSpecName",
			Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.template.spec.securityContext.windowsOptions.gmsaCredentialSpecName", Value: "webapp1"},
				{Op: rule.Remove, Path: ann + "[pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name]"},
			}},
	}
	got := map[string]*rule.Fix{}
	lines := map[int]bool{}
	for _, f := range fs {
		got[f.Path] = f.Fix
		lines[f.Line] = true
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixes by path (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int]bool{11: true, 12: true, 13: true, 14: true}, lines); diff != "" {
		t.Errorf("finding lines (-want +got):\n%s", diff)
	}
}

// TestOutboundPing: the command lines windows-icmp-outbound reads, as its
// exported CEL reads them (an address with a zone or an IPv4-mapped
// address is not read as one, as CEL's isIP refuses both; only ASCII is
// lowered, as CEL's lowerAscii).
func TestOutboundPing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line        string
		cmd, target string
		outside     bool
	}{
		{"ping -n 1 www.microsoft.com", "ping", "www.microsoft.com", true},
		{"cmd /c \"ping -n 1 8.8.8.8 || exit 1\"", "ping", "8.8.8.8", true},
		{"PING.EXE /n 2 Example.COM.", "PING.EXE", "Example.COM.", true},
		{"Test-Connection -ComputerName contoso.com -Count 1", "Test-Connection", "contoso.com", true},
		{"Test-NetConnection example.com -Port 443", "", "", false},
		{"ping 10.0.0.1", "", "", false},
		{"ping backend.shop.svc", "", "", false},
		{"ping api.ns.svc.cluster.local", "", "", false},
		{"ping ::ffff:8.8.8.8", "", "", false},
		{"ping 2001:4860:4860::8888%eth0", "", "", false},
		{"ping 2001:4860:4860::8888", "ping", "2001:4860:4860::8888", true},
		{"ping \u212Aubernetes.io", "", "", false}, // Kelvin sign: not a name
	} {
		cmd, target, ok := outboundPing([]string{tt.line}, "cluster.local")
		if ok != tt.outside || cmd != tt.cmd || target != tt.target {
			t.Errorf("%q: (%q, %q, %v), want (%q, %q, %v)", tt.line, cmd, target, ok, tt.cmd, tt.target, tt.outside)
		}
	}
}
