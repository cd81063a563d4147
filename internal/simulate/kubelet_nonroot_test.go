package simulate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// ImageUser reads the user of the image's Windows entries, as the
// registry package's Resolver does.
func (f fakeImages) ImageUser(ref string) winsupport.ImageUser {
	if r, ok := f[ref]; ok {
		return r.User()
	}
	return winsupport.ImageUser{}
}

// TestStartFailureRunAsNonRoot holds the kubelet phase to the Windows
// kubelet's verifyRunAsNonRoot, row by row with the line each row mirrors
// (k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/security_context_windows.go,
// "scw" below, and kuberuntime_container.go startContainer, which turns the
// error into the waiting reason CreateContainerConfigError).
func TestStartFailureRunAsNonRoot(t *testing.T) {
	t.Parallel()
	ws2022 := testNode("win-0", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348"}, nil, "4", "8Gi", 110)
	linux := testNode("linux-0", nil, nil, "4", "8Gi", 110)
	yes, no := true, false
	name := func(s string) *string { return &s }
	sc := func(nonRoot *bool, user *string) *corev1.SecurityContext {
		c := &corev1.SecurityContext{RunAsNonRoot: nonRoot}
		if user != nil {
			c.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: user}
		}
		return c
	}
	pod := func(image string, podNonRoot *bool, podUser *string, c *corev1.SecurityContext) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: podNonRoot}
			if podUser != nil {
				s.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: podUser}
			}
			s.Containers[0].Image = image
			s.Containers[0].SecurityContext = c
		}
	}
	const (
		nano = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		core = "mcr.microsoft.com/windows/servercore:ltsc2022"
	)
	refusedName := "CreateContainerConfigError: container's runAsUserName (ContainerAdministrator) which will be regarded as root identity and will break non-root policy (pod: \"p_default()\", container: c)"
	tests := []struct {
		name, source string
		pod          func(*corev1.PodSpec)
		node         *corev1.Node
		images       fakeImages
		want         string // exact; "" means it starts
	}{
		{"runAsNonRoot unset", "scw:48", pod(nano, nil, name("ContainerAdministrator"), nil), ws2022, nil, ""},
		{"runAsNonRoot false", "scw:48", pod(nano, &no, name("ContainerAdministrator"), nil), ws2022, nil, ""},
		{"container runAsUserName ContainerAdministrator", "scw:65-66", pod(nano, &yes, nil, sc(nil, name("ContainerAdministrator"))), ws2022, nil, refusedName},
		{"pod runAsUserName, container runAsNonRoot", "scw:46 (DetermineEffectiveSecurityContext), scw:66", pod(nano, &no, name("ContainerAdministrator"), sc(&yes, nil)), ws2022, nil, refusedName},
		{"any case", "scw:65 (strings.EqualFold)", pod(nano, &yes, name("CONTAINERADMINISTRATOR"), nil), ws2022, nil,
			"CreateContainerConfigError: container's runAsUserName (CONTAINERADMINISTRATOR) which will be regarded as root identity and will break non-root policy (pod: \"p_default()\", container: c)"},
		{"container's ContainerUser over the pod's ContainerAdministrator", "scw:46, scw:68", pod(nano, &yes, name("ContainerAdministrator"), sc(nil, name("ContainerUser"))), ws2022, nil, ""},
		{"a set runAsUserName ends the check", "scw:68", pod(core, &yes, name("ContainerUser"), nil), ws2022, nil, ""},
		{"image user ContainerAdministrator", "scw:72-73", pod("example.com/admin:1.0", &yes, nil, nil), ws2022, fakeImages{
			"example.com/admin:1.0": {Ref: "example.com/admin:1.0", Platforms: []winsupport.PlatformEntry{{OS: "windows", Architecture: "amd64", OSVersion: "10.0.20348.2461", User: name("ContainerAdministrator")}}}},
			"CreateContainerConfigError: container's runAsUser (ContainerAdministrator) which will be regarded as root identity and will break non-root policy (pod: \"p_default()\", container: c)"},
		{"image user unset: not enforced, starts", "scw:72, scw:75", pod(core, &yes, nil, nil), ws2022, nil, ""},
		{"image user ContainerUser", "scw:72, scw:75", pod(nano, &yes, nil, nil), ws2022, nil, ""},
		{"Linux nodes run another check", "security_context_others.go", pod("nginx:1.27", &yes, name("ContainerAdministrator"), nil), linux, nil, ""},
		{"a failed pull comes first", "kuberuntime_container.go startContainer (EnsureImageExists before generateContainerConfig)", pod("nginx:1.27", &yes, name("ContainerAdministrator"), nil), ws2022, nil,
			"ErrImagePull: container \"c\": failed to pull image \"nginx:1.27\": " + noPlatform + " (the image is published for Linux only; the node runs Windows)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var images rule.ImageLookup
			if tt.images != nil {
				images = tt.images
			}
			got := startFailure(podWith(tt.pod), tt.node, false, version(36), images)
			if got != tt.want {
				t.Errorf("%s: startFailure =\n  %q\nwant\n  %q", tt.source, got, tt.want)
			}
		})
	}
}

// TestIssueExampleRunAsNonRoot: the issue's Deployment is scheduled onto
// a Windows node and refused there for container d.
func TestIssueExampleRunAsNonRoot(t *testing.T) {
	t.Parallel()
	yaml := deploymentYAML("shop", "web", 1, `
nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.20348}
tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
securityContext: {runAsNonRoot: true}
containers:
- name: c
  image: mcr.microsoft.com/windows/servercore:ltsc2022
- name: d
  image: mcr.microsoft.com/windows/nanoserver:ltsc2022
  securityContext: {windowsOptions: {runAsUserName: ContainerAdministrator}}
`)
	res := simulateOn(t, nil, yaml, Input{})
	if len(res.Pods) != 1 {
		t.Fatalf("%d pods, want 1", len(res.Pods))
	}
	p := res.Pods[0]
	want := "CreateContainerConfigError: container's runAsUserName (ContainerAdministrator) which will be regarded as root identity and will break non-root policy (pod: \"" + p.Pod + "_shop()\", container: d)"
	if p.Node == "" || p.StartFailure != want {
		t.Errorf("pod %s on %q: start failure\n  %q\nwant\n  %q", p.Pod, p.Node, p.StartFailure, want)
	}
}
