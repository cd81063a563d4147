package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// kyvernoCRDs returns the CRD files of the Kyverno release the export
// targets, from the Go module cache (go mod download fetches the module
// from the proxy once).
func kyvernoCRDs(t *testing.T) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", "github.com/kyverno/kyverno@"+policy.KyvernoVersion)
	cmd.Dir = t.TempDir() // outside the module: no go.mod change
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); err != nil || jerr != nil || mod.Dir == "" {
		t.Fatalf("downloading github.com/kyverno/kyverno@%s for its CRDs: %v %s %s", policy.KyvernoVersion, err, mod.Error, out)
	}
	return []string{
		filepath.Join(mod.Dir, "config/crds/kyverno/kyverno.io_clusterpolicies.yaml"),
		filepath.Join(mod.Dir, "config/crds/policies.kyverno.io/policies.kyverno.io_mutatingpolicies.yaml"),
	}
}

// TestKyvernoPoliciesMatchTheirSchema installs Kyverno's own CRDs for
// ClusterPolicy and MutatingPolicy in the real API server and creates the
// exported Kyverno policies with strict field validation: the API server
// checks them against the CRDs' OpenAPI schemas and CEL rules. (Kyverno
// itself is not run: its CLI v1.19.1 builds from the module proxy's source
// only as the main module, its replace directives ruling out go install,
// and that build took 50 minutes on the 2-core test machine; one
// `kyverno apply` of the per-rule policies over a single object then took
// about 100 s, nearly all of it compiling the policies' CEL.)
func TestKyvernoPoliciesMatchTheirSchema(t *testing.T) {
	s := startServer(t)
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, f := range kyvernoCRDs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd unstructured.Unstructured
		if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&crd.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := s.dyn.Resource(crdGVR).Create(t.Context(), &crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("installing %s: %v", f, err)
		}
		waitEstablished(t, s, crdGVR, crd.GetName())
	}
	// The check can fail: a field Kyverno does not know is refused.
	bogus := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy",
		"metadata": map[string]any{"name": "bogus"}, "spec": map[string]any{"rules": []any{map[string]any{"name": "r", "validate": map[string]any{"cell": map[string]any{}}}}}}}
	if _, err := s.dyn.Resource(schema.GroupVersionResource{Group: "kyverno.io", Version: "v1", Resource: "clusterpolicies"}).Create(t.Context(), bogus, metav1.CreateOptions{FieldValidation: "Strict"}); err == nil {
		t.Fatal("the ClusterPolicy CRD accepted an unknown field validate.cell: the schema check proves nothing")
	}
	for _, mode := range []policy.Mode{policy.Enforce, policy.WarnOnly} {
		y, err := policy.Export(policy.Options{Rules: rules.Suite(), Model: winsupport.Default(), Mode: mode, ExcludeNamespaces: []string{"kube-system"}, Name: "winkube-" + string(mode), Fixes: true}, "kyverno")
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(y), 4096)
		kinds := map[string]int{}
		for {
			var u unstructured.Unstructured
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatal(err)
			}
			if len(u.Object) == 0 {
				continue
			}
			gvk := u.GroupVersionKind()
			gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: map[string]string{"ClusterPolicy": "clusterpolicies", "MutatingPolicy": "mutatingpolicies"}[gvk.Kind]}
			if gvr.Resource == "" {
				t.Fatalf("unexpected %s in the kyverno export", gvk)
			}
			if _, err := s.dyn.Resource(gvr).Create(t.Context(), &u, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
				t.Errorf("mode %s: the Kyverno %s schema refuses %s: %v", mode, gvk.Kind, u.GetName(), err)
			}
			kinds[gvk.Kind]++
		}
		// One ClusterPolicy per severity the exported rules report at.
		sevs := map[rule.Severity]bool{}
		for _, r := range coveredRules(winsupport.Default()) {
			sevs[r.Severity] = true
		}
		if kinds["ClusterPolicy"] != len(sevs) || kinds["MutatingPolicy"] != 1 {
			t.Errorf("mode %s: exported %v, want %d ClusterPolicies (one per severity) and 1 MutatingPolicy", mode, kinds, len(sevs))
		}
	}
}

func waitEstablished(t *testing.T, s *server, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		u, err := s.dyn.Resource(gvr).Get(t.Context(), name, metav1.GetOptions{})
		if err == nil {
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("CRD %s not established within 30s", name)
}
