package nodeconfig

import "testing"

// Network reads the pool's network mode from the CNI file or flannel's
// net-conf.json: overlay for VXLAN, l2bridge for host-gw and win-bridge,
// nothing when the files do not say.
func TestNetworkMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, text, cni, mode string
	}{
		{"flannel vxlan", "net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}`, "flannel", "overlay"},
		{"flannel host-gw", "net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`, "flannel", "l2bridge"},
		{"sdnoverlay delegate", "cni.conf", `{"cniVersion": "0.2.0", "name": "flannel.4096", "type": "flannel", "delegate": {"type": "sdnoverlay"}}`, "flannel", "overlay"},
		{"sdnbridge", "cni.conf", `{"cniVersion": "0.2.0", "name": "cbr0", "type": "sdnbridge"}`, "win-bridge", "l2bridge"},
		{"calico vxlan", "cni.conf", `{"cniVersion": "0.3.1", "name": "Calico", "type": "calico", "mode": "vxlan"}`, "calico", "overlay"},
		{"calico unsaid", "cni.conf", `{"cniVersion": "0.3.1", "name": "Calico", "type": "calico"}`, "calico", ""},
	} {
		f, err := Parse(tc.path, []byte(tc.text))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := Network([]*File{f})
		if got.CNI != tc.cni || got.Mode != tc.mode {
			t.Errorf("%s: Network() = cni %q mode %q, want %q %q", tc.name, got.CNI, got.Mode, tc.cni, tc.mode)
		}
	}
}
