package generate

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/manifest"
)

// FuzzGenerate: whatever WindowsNode file and file name come in, either
// the file is refused or every generated file is read back by its
// consumer's decoder and the services script keeps its shape (the same
// code lines as for an ordinary input of that CNI).
func FuzzGenerate(f *testing.F) {
	f.Add([]byte("apiVersion: winkube.io/v1alpha1\nkind: WindowsNode\nkubernetesVersion: \"1.36\"\nwindowsBuild: ltsc2022\ncontainerdVersion: 2.1.4\ncni: flannel-overlay\npodCIDR: 10.244.0.0/16\nserviceCIDR: 10.96.0.0/12\nsourceVip: 10.244.3.2\nreserved: {cpu: \"1\", memory: 3Gi}\nsandboxImage: registry.k8s.io/pause:3.10\n"), "node.yaml")
	f.Add([]byte("apiVersion: winkube.io/v1alpha1\nkind: WindowsNode\nkubernetesVersion: \"1.36.0\\nStart-Process calc\"\nwindowsBuild: ltsc2022\ncontainerdVersion: 1.7.1\ncni: antrea\npodCIDR: 10.244.0.0/16\nserviceCIDR: 10.96.0.0/12\nsandboxImage: \"a\\\"b\"\n"), "a\nb.yaml")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		var n Node
		if err := manifest.DecodeStrict("fuzz.yaml", data, &n); err != nil {
			return
		}
		r, err := n.Resolve()
		if err != nil {
			return
		}
		r.File = name
		checkConsumers(t, r)
		want := codeLines(t, Node{APIVersion: APIVersion, Kind: Kind, WindowsBuild: "ltsc2022", ContainerdVersion: "2.1.4",
			CNI: r.CNI, PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12", SourceVip: sourceVipFor(r.CNI)}, "node.yaml")
		if got := codeLines(t, n, name); got != want {
			t.Errorf("the services script's code changed shape: %d code lines, want %d", got, want)
		}
	})
}

func sourceVipFor(cni string) string {
	if cni == FlannelOverlay || cni == CalicoVXLAN {
		return "10.244.3.2"
	}
	return ""
}

// codeLines counts the lines of the services script that PowerShell runs.
func codeLines(t *testing.T, n Node, name string) int {
	r, err := n.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r.File = name
	count := 0
	for _, f := range Generate(r) {
		if f.Path != ServicesScript {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				count++
			}
		}
	}
	return count
}
