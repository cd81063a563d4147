package generate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	proxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// base is an ordinary, valid flannel-overlay node.
func base() Node {
	return Node{APIVersion: APIVersion, Kind: Kind, KubernetesVersion: "1.36", ContainerdVersion: "2.1.4",
		CNI: FlannelOverlay, WindowsBuild: "ltsc2022", PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12",
		SourceVip: "10.244.3.2"}
}

// TestHostileValuesRefused: every WindowsNode value that reaches a
// generated file is checked against what it must be; a value that could
// break out of its place in PowerShell, YAML, TOML or JSON is refused.
func TestHostileValuesRefused(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		edit        func(*Node)
	}{
		{"version with a newline", "kubernetesVersion", func(n *Node) { n.KubernetesVersion = "1.36.0\nStart-Process calc.exe" }},
		{"version with a quote", "kubernetesVersion", func(n *Node) { n.KubernetesVersion = "1.36.0'; calc; '" }},
		{"version with spaces", "kubernetesVersion", func(n *Node) { n.KubernetesVersion = " 1.36 " }},
		{"sandbox image with a newline", "sandboxImage", func(n *Node) { n.SandboxImage = "pause:3.10\"\n[plugins.x]\nrun = \"evil" }},
		{"sandbox image with a quote", "sandboxImage", func(n *Node) { n.SandboxImage = `registry.k8s.io/pause:3.10"` }},
		{"sandbox image with a control character", "sandboxImage", func(n *Node) { n.SandboxImage = "registry.k8s.io/pause:3.10\x00" }},
		{"sandbox image with upper case path", "sandboxImage", func(n *Node) { n.SandboxImage = "registry.k8s.io/Pause:3.10" }},
		{"clusterDNS with a zone", "clusterDNS", func(n *Node) { n.ClusterDNS = "fe80::a%\"]\nx: y" }},
		{"sourceVip with a zone", "sourceVip", func(n *Node) { n.SourceVip = "fe80::1%\nevil: true" }},
		{"cpu that is not a quantity", "reserved.cpu", func(n *Node) { n.Reserved.CPU = "1\nevil: true" }},
		{"negative cpu", "reserved.cpu", func(n *Node) { n.Reserved.CPU = "-1" }},
		{"negative memory", "reserved.memory", func(n *Node) { n.Reserved.Memory = "-3Gi" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := base()
			tc.edit(&n)
			_, err := n.Resolve()
			if err == nil {
				t.Fatalf("%s accepted", tc.field)
			}
			if !strings.Contains(err.Error(), tc.field+":") {
				t.Errorf("error does not name %s: %v", tc.field, err)
			}
		})
	}
}

// TestFileNameStaysInComment: the input's file name reaches a comment in
// every file (and the Administrator script); no character of it may end
// that comment.
func TestFileNameStaysInComment(t *testing.T) {
	r, err := base().Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r.File = "/tmp/node\r\nStart-Process calc.exe\u2028\u0085#\x1b]52;c;aGk=\x07.yaml"
	for _, f := range Generate(r) {
		for _, line := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(line, "Start-Process calc") {
				t.Errorf("%s: the file name broke out of its comment: %q", f.Path, line)
			}
			if strings.ContainsAny(line, "\r\x1b\x07\u2028\u0085") {
				t.Errorf("%s: control character from the file name reached the output: %q", f.Path, line)
			}
		}
	}
	checkConsumers(t, r)
}

// TestConsumersReadGenerated: every generated file is read back by the
// consumer's own decoder (the kubelet's and kube-proxy's strict codec,
// go-toml for containerd, strict single-value JSON for CNI and flannel)
// for ordinary inputs and for unusual but valid ones.
func TestConsumersReadGenerated(t *testing.T) {
	inputs := nodes()
	odd := base()
	odd.Reserved = Reserved{CPU: "1", Memory: "4294967296"}
	odd.SandboxImage = "my-registry.example.com:5000/team_a/pause-windows__x@sha256:" + strings.Repeat("ab", 32)
	odd.KubernetesVersion = "v1.35.2"
	odd.ClusterDNS = "10.96.0.53"
	inputs = append(inputs, odd)
	for _, n := range inputs {
		r, err := n.Resolve()
		if err != nil {
			t.Fatalf("%+v: %v", n, err)
		}
		checkConsumers(t, r)
	}
}

func checkConsumers(t *testing.T, r *Resolved) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := kubeletv1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := proxyv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	codec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
	for _, f := range Generate(r) {
		switch {
		case f.Path == KubeletConfig:
			obj, _, err := codec.Decode(f.Data, nil, nil)
			if err != nil {
				t.Errorf("kubelet codec rejects the generated %s: %v\n%s", f.Path, err, f.Data)
				continue
			}
			kc := obj.(*kubeletv1beta1.KubeletConfiguration)
			if got := kc.SystemReserved["cpu"]; got != r.CPURes.String() {
				t.Errorf("systemReserved.cpu read back as %q, want %q", got, r.CPURes.String())
			}
			if got := kc.SystemReserved["memory"]; got != r.MemReserve.String() {
				t.Errorf("systemReserved.memory read back as %q, want %q", got, r.MemReserve.String())
			}
		case f.Path == KubeProxyConf:
			if _, _, err := codec.Decode(f.Data, nil, nil); err != nil {
				t.Errorf("kube-proxy codec rejects the generated %s: %v\n%s", f.Path, err, f.Data)
			}
		case strings.HasSuffix(f.Path, ".toml"):
			var tree map[string]any
			if err := toml.Unmarshal(f.Data, &tree); err != nil {
				t.Errorf("go-toml rejects the generated %s: %v\n%s", f.Path, err, f.Data)
				continue
			}
			if got := sandboxOf(tree); got != r.SandboxImage {
				t.Errorf("sandbox image read back as %q, want %q", got, r.SandboxImage)
			}
		case strings.HasSuffix(f.Path, ".json"), strings.HasSuffix(f.Path, ".conflist"):
			if err := strictJSON(f.Data); err != nil {
				t.Errorf("generated %s: %v", f.Path, err)
			}
		}
	}
}

func sandboxOf(tree map[string]any) string {
	dig := func(m any, keys ...string) any {
		for _, k := range keys {
			mm, ok := m.(map[string]any)
			if !ok {
				return nil
			}
			m = mm[k]
		}
		return m
	}
	if s, ok := dig(tree, "plugins", "io.containerd.grpc.v1.cri", "sandbox_image").(string); ok {
		return s
	}
	s, _ := dig(tree, "plugins", "io.containerd.cri.v1.images", "pinned_images", "sandbox").(string)
	return s
}

// strictJSON is libcni's reading: one JSON value and nothing after it.
func strictJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}
