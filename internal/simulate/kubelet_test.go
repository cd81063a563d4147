package simulate

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

func TestStartFailure(t *testing.T) {
	t.Parallel()
	ws2022 := testNode("win-0", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348"}, nil, "4", "8Gi", 110)
	ws2019 := testNode("win19-0", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"}, nil, "4", "8Gi", 110)
	ws2025 := testNode("win25-0", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.26100"}, nil, "4", "8Gi", 110)
	linux := testNode("linux-0", nil, nil, "4", "8Gi", 110)
	image := func(img string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) { s.Containers[0].Image = img }
	}
	hostProcess := func(s *corev1.PodSpec) {
		yes := true
		s.Containers[0].Image = "mcr.microsoft.com/windows/servercore:ltsc2019"
		s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: &yes}}
	}
	tests := []struct {
		name   string
		pod    func(*corev1.PodSpec)
		labels map[string]string
		node   *corev1.Node
		hyperV bool
		want   string // substring; "" means it starts
	}{
		{"Linux image on Linux", image("nginx:1.27"), nil, linux, false, ""},
		{"Linux-only image on Windows", image("nginx:1.27"), nil, ws2022, false, "ErrImagePull: container \"c\": failed to pull image \"nginx:1.27\": " + noPlatform},
		{"Windows image on Linux", image("mcr.microsoft.com/windows/nanoserver:ltsc2022"), nil, linux, false, "ErrImagePull"},
		{"matching build", image("mcr.microsoft.com/windows/nanoserver:ltsc2022"), nil, ws2022, false, ""},
		{"older build, process isolation", image("mcr.microsoft.com/windows/servercore:ltsc2019"), nil, ws2022, false, "CreateContainerError: container \"c\": " + osMismatch},
		{"ltsc2022 on Windows Server 2025 starts", image("mcr.microsoft.com/windows/servercore:ltsc2022"), nil, ws2025, false, ""},
		{"ltsc2019 on Windows Server 2025 does not", image("mcr.microsoft.com/windows/servercore:ltsc2019"), nil, ws2025, false, osMismatch},
		{"older build, Hyper-V isolation", image("mcr.microsoft.com/windows/servercore:ltsc2019"), nil, ws2022, true, ""},
		{"newer build, Hyper-V isolation", image("mcr.microsoft.com/windows/nanoserver:ltsc2022"), nil, ws2019, true, osMismatch},
		{"HostProcess needs no build match", hostProcess, nil, ws2022, false, ""},
		{"multi-platform image on Windows", image("mcr.microsoft.com/dotnet/aspnet:8.0"), nil, ws2022, false, ""},
		{"spec.os windows on Linux", func(s *corev1.PodSpec) {
			s.OS = &corev1.PodOS{Name: corev1.Windows}
			s.Containers[0].Image = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		}, nil, linux, false, podOSNotSupported},
		{"OS label against the node", image("nginx"), map[string]string{"kubernetes.io/os": "windows"}, linux, false, podOSSelectorMismatch},
		{"init containers are checked first", func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.36"}}
			s.Containers[0].Image = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		}, nil, ws2022, false, "container \"init\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := podWith(tt.pod)
			pod.Labels = tt.labels
			got := startFailure(pod, tt.node, tt.hyperV, version(36), nil)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("startFailure = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKubeletAdmitsNamedPods(t *testing.T) {
	t.Parallel()
	yaml := yamlDocs(podYAML("small", `
nodeName: linux-0
containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
`), podYAML("too-big", `
nodeName: linux-0
containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
`), podYAML("tainted-ok", `
nodeName: windows-0
containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`), podYAML("missing-node", `
nodeName: nowhere
containers: [{name: c, image: nginx}]
`))
	res := simulateOn(t, nil, yaml, Input{})
	byName := map[string]PodResult{}
	for _, p := range res.Pods {
		byName[p.Pod] = p
	}
	if p := byName["small"]; p.Node != "linux-0" || p.StartFailure != "" {
		t.Errorf("small: node %q, failure %q; want it running on linux-0", p.Node, p.StartFailure)
	}
	if p := byName["too-big"]; p.StartFailure != "OutOfcpu: Node didn't have enough resource: cpu, requested: 1000, used: 3000, capacity: 3400" {
		t.Errorf("too-big: failure %q", p.StartFailure)
	}
	// The kubelet checks only NoExecute taints: a NoSchedule taint does
	// not keep a pod that bypasses the scheduler off the node.
	if p := byName["tainted-ok"]; p.Node != "windows-0" || p.StartFailure != "" {
		t.Errorf("tainted-ok: node %q, failure %q", p.Node, p.StartFailure)
	}
	if p := byName["missing-node"]; !p.Pending || p.Message != "" || len(p.Explanation) == 0 {
		t.Errorf("missing-node: %+v; want pending without a scheduler message", p)
	}
}

// fakeImages is an in-memory registry for the kubelet phase.
type fakeImages map[string]*winsupport.ResolvedImage

func (f fakeImages) Lookup(ref string) (*winsupport.ResolvedImage, error) {
	if r, ok := f[ref]; ok {
		return r, nil
	}
	return nil, errors.New("MANIFEST_UNKNOWN")
}

func TestStartFailureFromRegistry(t *testing.T) {
	t.Parallel()
	node := func(build string) *corev1.Node {
		return testNode("n", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": build}, nil, "4", "8Gi", 110)
	}
	linux := testNode("linux-0", nil, nil, "4", "8Gi", 110)
	win := func(v string) winsupport.PlatformEntry {
		return winsupport.PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: v}
	}
	images := fakeImages{
		"example.com/app:2022": {Ref: "example.com/app:2022", Digest: "sha256:aa", Platforms: []winsupport.PlatformEntry{win("10.0.20348.2461")}},
		"example.com/app:2019": {Ref: "example.com/app:2019", Digest: "sha256:bb", Platforms: []winsupport.PlatformEntry{win("10.0.17763.5820")}},
		"example.com/app:multi": {Ref: "example.com/app:multi", Digest: "sha256:cc", Index: true, Platforms: []winsupport.PlatformEntry{
			{OS: "linux", Architecture: "amd64"}, win("10.0.17763.5820"), win("10.0.20348.2461")}},
	}
	for _, tt := range []struct {
		image  string
		node   *corev1.Node
		hyperV bool
		want   string
	}{
		{"example.com/app:2022", node("10.0.26100"), false, ""},
		{"example.com/app:2022", node("10.0.20348"), false, ""},
		{"example.com/app:2022", node("10.0.17763"), false, "ErrImagePull: container \"c\": failed to pull image \"example.com/app:2022\": no match for platform in manifest: not found (the registry's manifest sha256:aa lists windows/amd64 10.0.20348.2461; the node runs windows/amd64 10.0.17763 with process isolation)"},
		{"example.com/app:2019", node("10.0.26100"), false, "no match for platform in manifest: not found"},
		{"example.com/app:2019", node("10.0.26100"), true, ""},
		{"example.com/app:multi", node("10.0.26100"), false, ""},
		{"example.com/app:multi", linux, false, ""},
		{"example.com/app:2022", linux, false, "the node runs linux/amd64)"},
		// Not in the registry: judged by the tag (the image-unresolved rule
		// reports the failure in lint).
		{"mcr.microsoft.com/windows/servercore:ltsc2019", node("10.0.20348"), false, osMismatch},
	} {
		pod := podWith(func(s *corev1.PodSpec) { s.Containers[0].Image = tt.image })
		got := startFailure(pod, tt.node, tt.hyperV, version(36), images)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s on %s (hyperV %v): startFailure = %q, want %q", tt.image, tt.node.Labels["node.kubernetes.io/windows-build"], tt.hyperV, got, tt.want)
		}
	}
}

func TestSandboxFromRegistry(t *testing.T) {
	t.Parallel()
	win := func(v string) winsupport.PlatformEntry {
		return winsupport.PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: v}
	}
	images := fakeImages{
		"example.com/pause:2022": {Ref: "example.com/pause:2022", Digest: "sha256:dd", Platforms: []winsupport.PlatformEntry{win("10.0.20348.1")}},
		"example.com/app:2019":   {Ref: "example.com/app:2019", Digest: "sha256:bb", Platforms: []winsupport.PlatformEntry{win("10.0.17763.5820")}},
	}
	node := testNode("n", map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"}, nil, "4", "8Gi", 110)
	node.Annotations = map[string]string{"winkube.io/sandbox-image": "example.com/pause:2022"}
	pod := podWith(func(s *corev1.PodSpec) { s.Containers[0].Image = "example.com/app:2019" })
	want := "FailedCreatePodSandBox: failed to get sandbox image \"example.com/pause:2022\": failed to pull image \"example.com/pause:2022\": no match for platform in manifest: not found"
	if got := startFailure(pod, node, false, version(36), images); !strings.HasPrefix(got, want) {
		t.Errorf("startFailure = %q, want prefix %q", got, want)
	}
	// The default sandbox image is not in this registry: no refusal, and
	// the run's notes say it was not resolved.
	node.Annotations = nil
	rec := recording(images)
	if got := startFailure(pod, node, false, version(36), rec); got != "" {
		t.Errorf("startFailure = %q, want it to start", got)
	}
	notes := rec.notes()
	if len(notes) != 1 || !strings.Contains(notes[0], `image "registry.k8s.io/pause:3.10.1" could not be resolved`) {
		t.Errorf("notes = %q", notes)
	}
}
