package apirules_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// shapeRules judge the request's shape rather than the decoded object:
// unknown fields (which decoding into the API types drops) and API
// versions the server does not serve (refused before any object exists).
// They are checked against the raw documents, as kubectl sends them.
var shapeRules = map[string]bool{rules.UnknownField.ID: true, rules.RemovedAPIVersion.ID: true}

// testShapeOnAPIServer holds unknown-field to the API server's strict field
// validation (kubectl's default, fieldValidation=Strict) and
// removed-api-version to the RESTMapper kubectl builds from the server's
// discovery, whose NoKindMatchError kubectl prints.
func testShapeOnAPIServer(t *testing.T, dyn dynamic.Interface, disc discovery.DiscoveryInterface, ns string) {
	ctx := t.Context()
	groups, err := restmapper.GetAPIGroupResources(disc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	checked := 0
	for _, r := range []*rule.Rule{rules.UnknownField, rules.RemovedAPIVersion} {
		files, _ := filepath.Glob(filepath.Join(rulesDir, r.ID, "*.yaml"))
		for _, file := range files {
			ins, errs := manifest.Inputs([]string{file}, nil)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			res, err := engine.Run(ctx, ins, engine.Options{Rules: []*rule.Rule{r}, Cluster: cluster.Reference(), Model: winsupport.Default()})
			if err != nil {
				t.Fatal(err)
			}
			byDoc := map[int][]rule.Finding{}
			for _, f := range res.Findings {
				byDoc[f.Object.Doc] = append(byDoc[f.Object.Doc], f)
			}
			manifest.Each(ins[0], func(d manifest.Document) {
				js, err := sigsyaml.YAMLToJSON(d.Data)
				if err != nil || strings.TrimSpace(string(js)) == "null" {
					return
				}
				var m map[string]any
				if err := json.Unmarshal(js, &m); err != nil {
					t.Fatalf("%s document %d: %v", file, d.Index, err)
				}
				u := &unstructured.Unstructured{Object: m}
				found := byDoc[d.Index]
				checked++
				if r == rules.RemovedAPIVersion {
					checkServed(t, mapper, file, u, found)
					return
				}
				checkStrict(ctx, t, dyn, mapper, ns, file, u, found)
			})
		}
	}
	if checked < 4 {
		t.Errorf("only %d documents checked for their shape", checked)
	}
}

// checkServed: a finding exactly when the RESTMapper has no mapping for
// the document's kind and version, in the RESTMapper's own words.
func checkServed(t *testing.T, mapper meta.RESTMapper, file string, u *unstructured.Unstructured, found []rule.Finding) {
	t.Helper()
	gvk := u.GroupVersionKind()
	_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil && len(found) > 0:
		t.Errorf("%s: %s is served, yet removed-api-version said %q", file, gvk, found[0].Message)
	case err != nil && len(found) == 0:
		t.Errorf("%s: kubectl would say %q; removed-api-version found nothing", file, err)
	case err != nil && found[0].Message != err.Error():
		t.Errorf("%s: removed-api-version said %q; kubectl says %q", file, found[0].Message, err)
	}
}

// checkStrict creates the raw document with fieldValidation=Strict and
// dryRun=All: every unknown-field finding must be in the server's refusal,
// and a document without findings must not be refused for its fields.
func checkStrict(ctx context.Context, t *testing.T, dyn dynamic.Interface, mapper meta.RESTMapper, ns, file string, u *unstructured.Unstructured, found []rule.Finding) {
	t.Helper()
	gvk := u.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Logf("%s: %s is not served by the test server (no CRD): its fields are not checked", file, gvk)
		return
	}
	u.SetNamespace(ns)
	_, err = dyn.Resource(mapping.Resource).Namespace(ns).Create(ctx, u,
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
	said := ""
	if err != nil {
		said = err.Error()
	}
	// The server lists every unknown field in one message, "strict decoding
	// error: unknown field "a", unknown field "b""; winkube reports each at
	// its line, in the same words.
	for _, f := range found {
		field, ok := strings.CutPrefix(f.Message, "strict decoding error: ")
		if !ok || !strings.Contains(said, "strict decoding error: ") || !strings.Contains(said, field) {
			t.Errorf("%s:%d: unknown-field said %q; the API server said %q", file, f.Line, f.Message, said)
		}
	}
	if len(found) == 0 && strings.Contains(said, "strict decoding error") {
		t.Errorf("%s: the API server refused %s/%s with %q; unknown-field found nothing", file, gvk.Kind, u.GetName(), said)
	}
}
