package policy

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestCheckCluster: `winkube policy export --check-cluster` against a real
// API server holding the reference cluster's nodes and the params
// ConfigMap exported for it: agreement exits 0; a Windows node retainted
// behind the export's back exits 1 and names the node and its taint.
func TestCheckCluster(t *testing.T) {
	s := startServer(t)
	ctx := t.Context()
	c := cluster.Reference()
	nodes, _ := c.Nodes()
	for _, n := range nodes {
		if _, err := s.cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	cm := createParams(t, s, c)
	check := func() (int, string, string) { return checkCluster(t, s) }
	if code, out, errOut := check(); code != cli.ExitClean || !strings.Contains(out, "describes the 5 nodes") {
		t.Fatalf("agreeing cluster: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	var win *corev1.Node
	for _, n := range nodes {
		if n.Labels[cluster.LabelOS] == "windows" {
			win = n
			break
		}
	}
	got, err := s.kube.CoreV1().Nodes().Get(ctx, win.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoExecute}}
	if _, err := s.kube.CoreV1().Nodes().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := check()
	want := "drift: node " + win.Name + " (build 10.0.20348, taints os=windows:NoExecute) matches no Windows pool of the ConfigMap"
	if code != cli.ExitFindings || !strings.Contains(out, want) {
		t.Errorf("retainted node: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}

	// Read-only: nothing the check could have written changed.
	after, err := s.kube.CoreV1().ConfigMaps("kube-system").Get(ctx, policy.ParamsName, metav1.GetOptions{})
	if err != nil || after.ResourceVersion == "" || after.Data["windowsPools"] != cm.Data["windowsPools"] {
		t.Errorf("the params ConfigMap changed: %v %+v", err, after.Data)
	}
	if code, _, errOut := checkCluster(t, s, "--params-namespace", "nowhere"); code != cli.ExitError || !strings.Contains(errOut, "reading the params ConfigMap nowhere/winkube-cluster") {
		t.Errorf("missing ConfigMap: exit %d, stderr %q", code, errOut)
	}
}

// TestCheckClusterNetwork: --check-cluster holds the params' CNI and
// network mode to what the Windows nodes' own annotations show, in a
// real API server: nodes that show nothing leave the CNI unchecked (a
// note, exit 0); a node whose Calico agent annotated it is drift from a
// flannel pool (exit 1); flannel nodes with the vxlan backend agree with
// a flannel overlay pool.
func TestCheckClusterNetwork(t *testing.T) {
	s := startServer(t)
	ctx := t.Context()
	c := cluster.Reference()
	for i := range c.Pools {
		if c.Pools[i].OS == "windows" {
			c.Pools[i].CNI, c.Pools[i].NetworkMode = "flannel", "overlay"
		}
	}
	nodes, _ := c.Nodes()
	var wins []string
	for _, n := range nodes {
		if _, err := s.cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
		if n.Labels[cluster.LabelOS] == "windows" {
			wins = append(wins, n.Name)
		}
	}
	createParams(t, s, c)
	check := func() (int, string, string) { return checkCluster(t, s) }
	annotate := func(name string, a map[string]string) {
		n, err := s.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Annotations = a
		if _, err := s.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	note := `note: the cni "flannel" of Windows pool "windows" of the ConfigMap is not checked`
	if code, out, errOut := check(); code != cli.ExitClean || !strings.Contains(errOut, note) {
		t.Errorf("nodes without CNI annotations: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, errOut, note)
	}
	annotate(wins[0], map[string]string{"projectcalico.org/IPv4Address": "10.1.0.4/24"})
	want := "drift: node " + wins[0] + `: its annotations show CNI calico, but Windows pool "windows" of the ConfigMap has cni "flannel"`
	if code, out, errOut := check(); code != cli.ExitFindings || !strings.Contains(out, want) {
		t.Errorf("a Calico node: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
	for _, w := range wins {
		annotate(w, map[string]string{"flannel.alpha.coreos.com/backend-type": "vxlan"})
	}
	if code, out, errOut := check(); code != cli.ExitClean || strings.Contains(errOut, "note:") {
		t.Errorf("flannel vxlan nodes: exit %d, stdout %q, stderr %q; want exit 0 and no note", code, out, errOut)
	}
}

// createParams creates the params ConfigMap exported for c in kube-system.
func createParams(t *testing.T, s *server, c *cluster.Cluster) *corev1.ConfigMap {
	t.Helper()
	cm, err := policy.Params(c, winsupport.Default(), "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.kube.CoreV1().ConfigMaps("kube-system").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cm
}

// checkCluster runs `winkube policy export --check-cluster` against the
// server: exit code, stdout, stderr.
func checkCluster(t *testing.T, s *server, args ...string) (int, string, string) {
	return winkube(t, append([]string{"policy", "export", "--check-cluster", "--kubeconfig", s.cp.KubeconfigPath}, args...)...)
}
