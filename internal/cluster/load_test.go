package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestLoadCompact(t *testing.T) {
	t.Parallel()
	c, err := Load("testdata/compact.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "prod" || c.KubernetesVersion != "1.33" || len(c.Pools) != 2 {
		t.Fatalf("cluster = %+v", c)
	}
	nodes, pools := c.Nodes()
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name+"@"+pools[n.Name])
	}
	want := []string{"lin-0@lin", "lin-1@lin", "lin-2@lin", "lin-3@lin", "win-0@win", "win-1@win"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	lin3, win0 := nodes[3], nodes[4]
	wantLabels := map[string]string{
		"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "beta.kubernetes.io/arch": "amd64",
		"kubernetes.io/hostname": "lin-3", "topology.kubernetes.io/zone": "eu-1", "team": "web",
	}
	if diff := cmp.Diff(wantLabels, lin3.Labels); diff != "" {
		t.Errorf("lin-3 labels (-want +got):\n%s", diff)
	}
	if got := win0.Labels["node.kubernetes.io/windows-build"]; got != "10.0.26100" {
		t.Errorf("win-0 build label = %q", got)
	}
	if len(win0.Spec.Taints) != 1 || win0.Spec.Taints[0] != WindowsTaint {
		t.Errorf("win-0 taints = %v", win0.Spec.Taints)
	}
	tests := []struct {
		node *corev1.Node
		name corev1.ResourceName
		want string
	}{
		{lin3, corev1.ResourceCPU, "7400m"},              // 8 - 600m Linux default
		{lin3, corev1.ResourcePods, "110"},               // default maxPods
		{lin3, corev1.ResourceEphemeralStorage, "100Gi"}, // default disk
		{win0, corev1.ResourceCPU, "2800m"},              // 4 - 1200m Windows default
		{win0, corev1.ResourceMemory, "15Gi"},            // 16Gi - the pool's own 1Gi
		{win0, corev1.ResourcePods, "30"},
		{win0, "example.com/gpu", "1"},
	}
	for _, tt := range tests {
		if got := tt.node.Status.Allocatable[tt.name]; got.String() != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.node.Name, tt.name, got.String(), tt.want)
		}
	}
	// 32Gi less the Linux default of 1.3Gi, in whole bytes.
	mem := lin3.Status.Allocatable[corev1.ResourceMemory]
	total, reserved := resource.MustParse("32Gi"), resource.MustParse("1.3Gi")
	if want := total.Value() - reserved.Value(); mem.Value() != want || mem.MilliValue() != want*1000 {
		t.Errorf("lin-3 memory = %s, want %d bytes", mem.String(), want)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "pool win reserves 1Gi") {
		t.Errorf("warnings = %q, want one about the Windows pool's 1Gi", w)
	}
}

func TestLoadStrictErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		want []string // every problem, each with its line
	}{
		{"unknown fields, all of them", `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- name: lin
  cont: 3
  os: linux
  cpu: "4"
  memory: 16Gi
  tains: []
`, []string{`:5:3: pools[0]: unknown field "cont" (did you mean "count"?)`, `:9:3: pools[0]: unknown field "tains" (did you mean "taints"?)`}},
		{"semantic problems, all of them", `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- name: lin
  count: 2
  os: Linux
  cpu: "4"
  memory: 16Gi
- name: lin
  count: 1
  os: windows
  windowsBuild: "2022"
  memory: 8Gi
  taints:
  - {key: os, effect: NoEvict}
`, []string{
			`:6:3: pools[0].os: must be linux or windows, got "Linux"`,
			`:9:3: pools[1].name: duplicate pool name "lin"`,
			`:12:3: pools[1].windowsBuild: "2022" is not a build like 10.0.20348`,
			`:9:3: pools[1].cpu: required`,
			`pools[1].taints[0].effect: must be NoSchedule, PreferNoSchedule or NoExecute, got "NoEvict"`,
		}},
		{"wrong type header", `apiVersion: winkube.io/v1beta9
kind: Cluster
pools:
- {name: a, count: 1, os: linux, cpu: "1", memory: 1Gi}
`, []string{`:1:1: apiVersion: must be winkube.io/v1alpha1, got "winkube.io/v1beta9"`}},
		{"reserved beyond the node", `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- name: a
  count: 1
  os: linux
  cpu: "1"
  memory: 1Gi
  reserved: {cpu: "2", gpu: "1"}
`, []string{`pools[0].reserved[cpu]: 2 reserves all of the node's 1`, `pools[0].reserved[gpu]: the node has no such resource`}},
		// A 300-byte file once allocated 100000000 nodes until the OOM killer.
		{"count past any cluster", `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- {name: a, count: 100000000, os: linux, cpu: "1", memory: 1Gi}
`, []string{`:4:13: pools[0].count: 100000000 is over the 5000 nodes a Kubernetes cluster supports`}},
		{"counts past any cluster together", `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- {name: a, count: 3000, os: linux, cpu: "1", memory: 1Gi}
- {name: b, count: 3000, os: linux, cpu: "1", memory: 1Gi}
`, []string{`pools: 6000 nodes in all is over the 5000 nodes`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Errorf("got %d problems, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), path+w) && !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
				if strings.HasPrefix(w, ":") && !strings.Contains(err.Error(), path+w) {
					t.Errorf("%q is not reported with its file and line:\n%v", w, err)
				}
			}
		})
	}
}

func TestLoadNodeObjects(t *testing.T) {
	t.Parallel()
	c, err := Load("testdata/nodes-list.yaml")
	if err != nil {
		t.Fatal(err)
	}
	nodes, pools := c.Nodes()
	if len(nodes) != 3 || nodes[0].Name != "aks-linux-12345-vmss000000" {
		t.Fatalf("nodes are not kept as observed: %d", len(nodes))
	}
	if diff := cmp.Diff(map[string]string{"aks-linux-12345-vmss000000": "linux", "aks-linux-12345-vmss000001": "linux", "akswin000000": "win"}, pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	lin, win := c.Pools[0], c.Pools[1]
	if lin.Count != 2 || lin.OS != "linux" || lin.MaxPods != 110 || !cmp.Equal(lin.Zones, []string{"westeurope-1", "westeurope-2"}) {
		t.Errorf("linux pool = %+v", lin)
	}
	if win.OS != "windows" || win.WindowsBuild != "10.0.20348" || len(win.Taints) != 1 || win.Labels["kubernetes.azure.com/agentpool"] != "win" {
		t.Errorf("windows pool = %+v", win)
	}
	if r := win.Reserved[corev1.ResourceMemory]; r.String() != "5Gi" {
		t.Errorf("windows reserved memory = %s, want capacity minus allocatable, 5Gi", r.String())
	}
	if !c.Hybrid() {
		t.Errorf("the observed cluster is hybrid")
	}

	docs, err := Load("testdata/nodes-docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range docs.Pools {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"linux", "windows-10-0-17763"}, names); diff != "" {
		t.Errorf("pools without a provider label are named by OS and build (-want +got):\n%s", diff)
	}
}

func TestLoadRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, want string }{
		{"a workload", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", "Deployment web is not a Node"},
		{"an empty list", "apiVersion: v1\nkind: List\nitems: []\n", "no nodes found"},
		{"two clusters", "apiVersion: winkube.io/v1alpha1\nkind: Cluster\n---\napiVersion: winkube.io/v1alpha1\nkind: Cluster\n", "holds one document"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Errorf("a missing file loads")
	}
}

func TestExampleClusterIsTheReference(t *testing.T) {
	t.Parallel()
	c, err := Load("../../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := c.Nodes()
	want, _ := Reference().Nodes()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("examples/cluster.yaml differs from the built-in reference cluster (-reference +file):\n%s", diff)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
}
