package doctor

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Messages as they reach the API server, one per runtime variant. The
// wrappers come from the kubelet (pkg/kubelet/kuberuntime), the CRI call,
// containerd (internal/cri/server, core/runtime/v2), hcsshim
// (internal/hcs) and Docker on Windows.
func TestCore(t *testing.T) {
	t.Parallel()
	const mismatch = "The container operating system does not match the host operating system."
	tests := []struct{ name, msg, want string }{
		{"containerd sandbox", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem 5e6f: " + mismatch + ": unknown", mismatch},
		{"containerd container", "Error: failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem abc: " + mismatch + ": unknown", mismatch},
		{"older hcsshim", "Error: failed to create containerd task: hcsshim::CreateComputeSystem 9f8e: " + mismatch + ": unknown", mismatch},
		{"docker", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to start sandbox container for pod "p": Error response from daemon: container 1f2e encountered an error during hcsshim::CreateComputeSystem: failure in a Windows system call: ` + mismatch + " (0xc0370101)", mismatch},
		{"pull", `Failed to pull image "nginx:1.27": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.27": no match for platform in manifest: not found`, "no match for platform in manifest: not found"},
		{"plain", "Back-off restarting failed container app in pod x", "Back-off restarting failed container app in pod x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Core(tt.msg)); diff != "" {
				t.Errorf("Core (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPatterns: each runtime's phrasing of a failure matches its cause,
// whatever the case, and not the other causes' patterns.
func TestPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg   string
		cause *Cause
	}{
		{"failed to create shim task: hcs::CreateComputeSystem x: The container operating system does not match the host operating system.: unknown", ImageBuildMismatch},
		{"hcsshim::CreateComputeSystem x: THE CONTAINER OPERATING SYSTEM DOES NOT MATCH THE HOST OPERATING SYSTEM.", ImageBuildMismatch},
		{"encountered an error during hcsshim::CreateComputeSystem: failure in a Windows system call: (0xc0370101)", ImageBuildMismatch},
		{"no match for platform in manifest: not found", LinuxImageOnWindows},
		{`Error response from daemon: image operating system "linux" cannot be used on this platform`, LinuxImageOnWindows},
		{`Error response from daemon: image operating system "windows" cannot be used on this platform`, WindowsImageOnLinux},
		{`failed to setup network for sandbox "x": plugin type="calico" failed (add): error`, CNINetworkFailure},
		{`networkPlugin cni failed to set up pod "x_ns" network: error`, CNINetworkFailure},
		{"hnsCall failed in Win32: The object already exists. (0x1392)", CNINetworkFailure},
		{"HNS failed with error : The parameter is incorrect.", CNINetworkFailure},
		{"failed to create shim task: failed to logon user: Access is denied.: unknown", HostProcessIdentity},
		{"invalid user string `x\\y\\z`", HostProcessIdentity},
		{`exec: "bash": executable file not found in $PATH: unknown`, CommandNotFound},
		{"hcs::System::CreateProcess 3c4d: The system cannot find the file specified.: unknown", CommandNotFound},
		{"container x encountered an error during hcsshim::System::CreateProcess: failure in a Windows system call: The system cannot find the file specified. (0x2)", CommandNotFound},
		{"Failed to admit pod as the OS field doesn't match node OS", PodOSMismatch},
		{"Failed to admit pod as the `kubernetes.io/os` label doesn't match node label", PodOSMismatch},
		{"pod-level resources are not supported on Windows", PodLevelResourcesUnsupported},
		{"0/3 nodes are available: 3 node(s) had untolerated taint(s).", UntoleratedTaint},
		{"0/3 nodes are available: 3 node(s) had untolerated taint {os: windows}.", UntoleratedTaint},
		{"0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", NoNodeMatchesSelector},
		{"0/3 nodes are available: 3 Insufficient memory.", InsufficientResources},
		{`Liveness probe failed: Get "http://10.0.0.1:80/": connection refused`, SlowStartKilledByLiveness},
		{"The node was low on resource: memory. ", Evicted},
		// Node log lines, as the kubelet's node log query returns them.
		{`I1127 03:58:01.123456    4712 kubelet.go:3272] "Container runtime not ready" runtimeReady="RuntimeReady=false reason: message:"`, RuntimeEndpointUnreachable},
		{`time="2026-11-27T03:58:01.1234567Z" level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:web-1,} failed, error" error="failed to setup network for sandbox \"4f1c\": plugin type=\"sdnoverlay\" name=\"vxlan0\" failed (add): HNS failed with error : The object already exists."`, SandboxNetworkSetupFailing},
		{`E1127 03:58:01.123456    5120 proxier.go:1480] "ClusterIP policy creation failed" err="hnsCall failed in Win32: The parameter is incorrect. (0x57)" clusterIP="10.96.0.10" serviceName="kube-system/kube-dns:dns"`, HNSLoadBalancerFailing},
		{`E1127 03:58:01.123456    5120 proxier.go:231] "Unable to find HNS Network specified, please check network name and CNI deployment" err="Network name \"vxlan0\" not found" hnsNetworkName="vxlan0"`, HNSNetworkMissing},
		{`E1127 03:58:01.123456    3344 main.go:335] Error registering network: timeout, failed to get management IP from HostComputeNetwork vxlan0: <nil>`, FlannelWaitingForNetwork},
		{`E1127 03:58:01.123456    5120 server.go:558] "Error running ProxyServer" err="source-vip flag not set"`, SourceVIPProblem},
		{"Invoke-WebRequest : The remote name could not be resolved: 'backend.shop'", DNSResolutionFailure},
		{"Unhandled exception. System.Net.Http.HttpRequestException: No such host is known. (sql.data.svc:1433)", DNSResolutionFailure},
		{"curl: (6) Could not resolve host: backend.shop.svc", DNSResolutionFailure},
		{"Invoke-WebRequest : Unable to connect to the remote server", ServiceUnreachable},
		{"System.Net.Sockets.SocketException (10060): A connection attempt failed because the connected party did not properly respond after a period of time", ServiceUnreachable},
		{"No connection could be made because the target machine actively refused it. (10.0.0.12:8080)", ServiceUnreachable},
	}
	for _, tt := range tests {
		if _, ok := anyMatch(tt.msg, tt.cause.Patterns); !ok {
			t.Errorf("%s does not match %q", tt.cause.ID, tt.msg)
		}
		for _, other := range Causes() {
			// Node causes are matched on node logs, the others on a
			// pod's events and status: they never compete.
			if other == tt.cause || sharesPatterns(other, tt.cause) || slices.Contains(nodeCauses(), other) != slices.Contains(nodeCauses(), tt.cause) {
				continue
			}
			if p, ok := anyMatch(tt.msg, other.Patterns); ok {
				t.Errorf("%q (for %s) also matches %s's pattern %q", tt.msg, tt.cause.ID, other.ID, p.Text)
			}
		}
	}
}

// sharesPatterns: some causes share their messages and are told apart by
// where the message came from (sandbox or container, node OS).
func sharesPatterns(a, b *Cause) bool {
	pairs := map[[2]string]bool{
		{ImageBuildMismatch.ID, PauseImageBuildMismatch.ID}: true,
		{LinuxImageOnWindows.ID, WindowsImageOnLinux.ID}:    true,
	}
	return pairs[[2]string{a.ID, b.ID}] || pairs[[2]string{b.ID, a.ID}]
}

func TestCNIPlugin(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		`plugin type="calico" failed (add): x`: "calico",
		`plugin type="sdnoverlay" failed`:      "sdnoverlay",
		"flannel: no subnet":                   "flannel",
		"hnsCall failed in Win32":              "",
	} {
		if got := CNIPlugin(msg); got != want {
			t.Errorf("CNIPlugin(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestCatalogue: every cause is documented, has a matcher (but unknown),
// and its IDs are unique.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Causes() {
		if seen[c.ID] {
			t.Errorf("duplicate cause %s", c.ID)
		}
		seen[c.ID] = true
		if c.Title == "" || c.Explain == "" || len(c.Steps) == 0 || len(c.Commands) == 0 || len(c.Sources) == 0 {
			t.Errorf("%s: title, explanation, steps, commands and sources are required", c.ID)
		}
		if _, ok := matchers[c]; !ok && c != Unknown && !slices.Contains(nodeCauses(), c) {
			t.Errorf("%s has no matcher", c.ID)
		}
	}
	for _, id := range []string{"untolerated-taint", "no-node-matches-selector", "insufficient-resources", "pod-os-mismatch", "image-build-mismatch",
		"pause-image-build-mismatch", "linux-image-on-windows", "windows-image-on-linux", "cni-network-failure", "hostprocess-identity",
		"command-not-found", "dll-not-found", "slow-start-killed-by-liveness", "slow-image-pull", "pod-level-resources-unsupported", "oom-killed", "unknown"} {
		if !seen[id] {
			t.Errorf("the issue's cause %s is not in the catalogue", id)
		}
	}
}
