package manifest

import "testing"

// TestCustomTemplate: pod templates of custom resources, at a known kind's
// path or found by structure, and where they are not.
func TestCustomTemplate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src, wantPath string // wantPath "" means no workload
	}{
		{"Argo Rollout", "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: nginx}]\n", "spec.template.spec"},
		{"template under an unknown kind", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  worker:\n    template:\n      metadata: {labels: {a: b}}\n      spec:\n        containers: [{name: c, image: nginx}]\n", "spec.worker.template.spec"},
		{"bare PodSpec under an unknown kind", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  podSpec:\n    containers: [{name: c, image: nginx}]\n", "spec.podSpec"},
		{"containers without images", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  containers: [{name: c}]\n", ""},
		{"nothing under spec", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {replicas: 2}\n", ""},
		{"too deep", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {a: {b: {c: {d: {e: {f: {containers: [{name: c, image: nginx}]}}}}}}}\n", ""},
		{"a built-in kind is not searched", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata: {containers: x}\n", ""},
	} {
		root, err := parseYAML("t.yaml", 1, []byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		o, errs := objectOf(t, root)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tt.name, errs[0])
		}
		w := o.Workload()
		got := ""
		if w != nil {
			got = w.SpecPath.String()
		}
		if got != tt.wantPath {
			t.Errorf("%s: spec path %q, want %q", tt.name, got, tt.wantPath)
		}
	}
}

func objectOf(t *testing.T, root *Node) (*Object, []*Error) {
	t.Helper()
	return decodeObject(Document{File: "t.yaml"}, root, -1)
}
