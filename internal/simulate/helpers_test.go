package simulate

import (
	"fmt"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
)

// objects decodes a YAML stream as the CLI would read it.
func objects(t *testing.T, yaml string) []*manifest.Object {
	t.Helper()
	s := manifest.NewSplitter("test.yaml", strings.NewReader(yaml), false)
	var out []*manifest.Object
	for {
		doc, err := s.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("split: %v", err)
		}
		objs, errs := manifest.Decode(doc)
		if len(errs) > 0 {
			t.Fatalf("decode: %v", errs[0])
		}
		out = append(out, objs...)
	}
}

// simulate runs the objects on the cluster (the reference cluster when
// nil).
func simulateOn(t *testing.T, c *cluster.Cluster, yaml string, in Input) *Result {
	t.Helper()
	if c == nil {
		c = cluster.Reference()
	}
	in.Nodes, in.Pools = c.Nodes()
	in.Objects = objects(t, yaml)
	res, err := Run(t.Context(), in)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// testNode builds a node with labels, taints and allocatable cpu, memory
// and pods.
func testNode(name string, labels map[string]string, taints []corev1.Taint, cpu, mem string, pods int) *corev1.Node {
	l := map[string]string{cluster.LabelHostname: name, cluster.LabelOS: "linux"}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(mem),
			corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
		}},
	}
}

// podsOf returns the results of one workload's pods.
func podsOf(r *Result, workload string) []PodResult {
	var out []PodResult
	for _, p := range r.Pods {
		if p.Workload == workload {
			out = append(out, p)
		}
	}
	return out
}

func nodesOf(ps []PodResult) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Node
	}
	return out
}

type testCluster struct {
	nodes []*corev1.Node
	pools map[string]string
}

func referenceNodes() testCluster {
	n, p := cluster.Reference().Nodes()
	return testCluster{n, p}
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

func corev1Taint(key string, effect corev1.TaintEffect) corev1.Taint {
	return corev1.Taint{Key: key, Effect: effect}
}

// yamlDocs joins YAML documents into one stream.
func yamlDocs(docs ...string) string { return strings.Join(docs, "---\n") }

// deploymentYAML is a Deployment in namespace ns whose replicas pods are
// labelled app: name; spec is the pod spec, unindented.
func deploymentYAML(ns, name string, replicas int, spec string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: %s}
spec:
  replicas: %d
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec:
`, name, ns, replicas, name, name) + indent(spec, "      ")
}

// podYAML is a bare Pod named name; spec is its spec, unindented.
func podYAML(name, spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n" + indent(spec, "  ")
}

// indent prefixes every non-empty line of s, which it ends with a newline.
func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.Trim(s, "\n"), "\n") {
		if l != "" {
			b.WriteString(prefix)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// daemonSetYAML is a DaemonSet in namespace ns; spec is the pod spec,
// unindented.
func daemonSetYAML(ns, name, spec string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: %s, namespace: %s}
spec:
  template:
    spec:
`, name, ns) + indent(spec, "      ")
}

// serviceYAML is a Service in namespace ns selecting app: app on port.
func serviceYAML(ns, name, app string, port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %s, namespace: %s}
spec:
  selector: {app: %s}
  ports: [{port: %d}]
`, name, ns, app, port)
}
