package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

func TestDrift(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	installed, err := Params(cluster.Reference(), m, "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	nodes := func(edit func([]*corev1.Node) []*corev1.Node) []*corev1.Node {
		ns, _ := cluster.Reference().Nodes()
		return edit(ns)
	}
	windows := func(ns []*corev1.Node) []*corev1.Node {
		var out []*corev1.Node
		for _, n := range ns {
			if n.Labels[cluster.LabelOS] == "windows" {
				out = append(out, n)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		nodes []*corev1.Node
		want  []string // substrings, one per line
	}{
		{"agrees", nodes(func(ns []*corev1.Node) []*corev1.Node { return ns }), nil},
		{"a node retainted", nodes(func(ns []*corev1.Node) []*corev1.Node {
			w := windows(ns)[0]
			w.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoExecute}}
			return ns
		}), []string{"node windows-0 (build 10.0.20348, taints os=windows:NoExecute) matches no Windows pool of the ConfigMap"}},
		{"untainted nodes", nodes(func(ns []*corev1.Node) []*corev1.Node {
			for _, w := range windows(ns) {
				w.Spec.Taints = nil
			}
			return ns
		}), []string{"node windows-0 (build 10.0.20348, untainted)", "node windows-1 (build 10.0.20348, untainted)",
			`Windows pool "windows" of the ConfigMap (build 10.0.20348, taints os=windows:NoSchedule) matches no node`}},
		{"a newer build", nodes(func(ns []*corev1.Node) []*corev1.Node {
			for _, w := range windows(ns) {
				w.Labels[cluster.LabelWindowsBuild] = "10.0.26100"
			}
			return ns
		}), []string{"node windows-0 (build 10.0.26100, taints os=windows:NoSchedule)", "node windows-1 (build 10.0.26100",
			`Windows pool "windows" of the ConfigMap (build 10.0.20348, taints os=windows:NoSchedule) matches no node`}},
		{"Windows nodes gone", nodes(func(ns []*corev1.Node) []*corev1.Node {
			var out []*corev1.Node
			for _, n := range ns {
				if n.Labels[cluster.LabelOS] != "windows" {
					out = append(out, n)
				}
			}
			return out
		}), []string{`hybrid is "true" in the ConfigMap, but the nodes are 3 Linux and 0 Windows`, `Windows pool "windows" of the ConfigMap`}},
		{"an unknown build label", nodes(func(ns []*corev1.Node) []*corev1.Node {
			windows(ns)[1].Labels[cluster.LabelWindowsBuild] = "10.0.99999"
			return ns
		}), []string{"node windows-1 (build 10.0.99999", `node windows-1: windows-build "10.0.99999" is not among the ConfigMap's builds`}},
	}
	for _, tc := range tests {
		got := Drift(installed, tc.nodes, m)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d lines, want %d:\n%s", tc.name, len(got), len(tc.want), cmp.Diff(tc.want, got))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: line %d %q lacks %q", tc.name, i, got[i], w)
			}
		}
	}
}

// TestDriftNetwork: the pools' CNI and network mode are held to what the
// Windows nodes' annotations show, and a pool whose CNI no node shows is
// named as not checked.
func TestDriftNetwork(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	c := cluster.Reference()
	for i := range c.Pools {
		if c.Pools[i].OS == "windows" {
			c.Pools[i].CNI, c.Pools[i].NetworkMode = "flannel", "overlay"
		}
	}
	installed, err := Params(c, m, "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	annotate := func(a map[string]string) []*corev1.Node {
		ns, _ := c.Nodes()
		for _, n := range ns {
			if n.Labels[cluster.LabelOS] == "windows" {
				n.Annotations = a
			}
		}
		return ns
	}
	tests := []struct {
		name             string
		nodes            []*corev1.Node
		drift, unchecked []string // substrings, one per line
	}{
		{"flannel vxlan agrees", annotate(map[string]string{"flannel.alpha.coreos.com/backend-type": "vxlan"}), nil, nil},
		{"host-gw is another mode", annotate(map[string]string{"flannel.alpha.coreos.com/backend-type": "host-gw"}),
			[]string{`node windows-0: its flannel backend means network mode l2bridge, but Windows pool "windows" of the ConfigMap has mode "overlay"`, "node windows-1: its flannel backend"}, nil},
		{"calico nodes", annotate(map[string]string{"projectcalico.org/IPv4Address": "10.1.0.4/24"}),
			[]string{`node windows-0: its annotations show CNI calico, but Windows pool "windows" of the ConfigMap has cni "flannel"`, "node windows-1: its annotations show CNI calico"}, nil},
		{"nodes that say nothing", annotate(nil), nil, []string{`the cni "flannel" of Windows pool "windows" of the ConfigMap is not checked`}},
	}
	for _, tc := range tests {
		for _, got := range []struct {
			what      string
			got, want []string
		}{{"drift", Drift(installed, tc.nodes, m), tc.drift}, {"unchecked", Unchecked(installed, tc.nodes, m), tc.unchecked}} {
			if len(got.got) != len(got.want) {
				t.Errorf("%s: %s: %d lines, want %d:\n%s", tc.name, got.what, len(got.got), len(got.want), cmp.Diff(got.want, got.got))
				continue
			}
			for i, w := range got.want {
				if !strings.Contains(got.got[i], w) {
					t.Errorf("%s: %s line %d %q lacks %q", tc.name, got.what, i, got.got[i], w)
				}
			}
		}
	}
}
