package rules

import (
	"testing"

	"github.com/winkube/winkube/internal/winsupport"
)

// TestWindowsHostPaths checks the two questions windows-unsupported-volume
// and windows-linux-path ask of the model about Linux-style paths.
func TestWindowsHostPaths(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	for _, tc := range []struct {
		path     string
		nodePath bool   // Windows nodes have it on drive C:
		kubelet  string // where the Windows kubelet puts it
	}{
		{"/var/lib/kubelet", true, `C:\var\lib\kubelet`},
		{"/var/lib/kubelet/plugins_registry/", true, `C:\var\lib\kubelet\plugins_registry\`},
		{"/var/lib", true, `C:\var\lib`},
		{"/", true, `C:\`},
		{"/etc", true, `C:\etc`},
		{"/etc/cni/net.d/10-calico.conflist", true, `C:\etc\cni\net.d\10-calico.conflist`},
		{"/var/lib/kubeletx", false, `C:\var\lib\kubeletx`},
		{"/var/lib/docker/containers", false, `C:\var\lib\docker\containers`},
		{"/run/containerd/containerd.sock", false, `C:\run\containerd\containerd.sock`},
		{"/data", false, `C:\data`},
		{`C:\data`, false, `C:\data`},
		{"C:/data", false, "C:/data"},
		{`\\.\pipe\csi-proxy-v1`, false, `\\.\pipe\csi-proxy-v1`},
	} {
		if _, got := m.WindowsNodePath(tc.path); got != tc.nodePath {
			t.Errorf("WindowsNodePath(%q) = %v, want %v", tc.path, got, tc.nodePath)
		}
		if got := m.KubeletWindowsPath(tc.path); got != tc.kubelet {
			t.Errorf("KubeletWindowsPath(%q) = %q, want %q", tc.path, got, tc.kubelet)
		}
	}
}
