package apirules_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/rules/rulestest"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/controlplane"
)

// rulesDir holds the rules' fixtures.
var rulesDir = filepath.Join("..", "..", "..", "internal", "rules", "testdata")

// predicted reports whether an API server error is one the rules above
// must find.
func predicted(msg string) bool {
	for _, s := range []string{
		"windows options cannot be set for a linux pod",
		"hostProcess", "runAsUserName", "gmsaCredentialSpec",
		"cannot be set for a windows pod", "may not be set for a windows pod",
		"`selector` does not match template `labels`",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return strings.Contains(msg, ".os: Unsupported value") || strings.Contains(msg, ".os.name: Required value")
}

// TestAPIServer compares the API-rejection rules with a real
// kube-apiserver v1.36.3: their fixtures, and tables of user and gMSA names.
func TestAPIServer(t *testing.T) {
	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true})
	const ns = "winkube-api-rules"
	if err := cp.CreateNamespace(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("fixtures", func(t *testing.T) { testFixturesOnAPIServer(t, dyn, ns) })
	t.Run("shape", func(t *testing.T) { testShapeOnAPIServer(t, dyn, cp.Client.Discovery(), ns) })
	t.Run("windowsOptions", func(t *testing.T) { testWindowsOptionsOnAPIServer(t, dyn, ns) })
}

// testFixturesOnAPIServer creates every workload of the API-rejection
// rules' fixtures (server-side dry run): each error-severity finding must
// be one of the API server's errors for the object, verbatim, and each API
// server error these rules cover must be found.
func testFixturesOnAPIServer(t *testing.T, dyn dynamic.Interface, ns string) {
	ctx := t.Context()
	var files []string
	var apiRules []*rule.Rule
	for _, r := range rules.API() {
		if !shapeRules[r.ID] {
			apiRules = append(apiRules, r)
		}
	}
	if len(apiRules) == 0 {
		t.Fatal("the suite has no api-rejection rules")
	}
	for _, r := range apiRules {
		fs, _ := filepath.Glob(filepath.Join(rulesDir, r.ID, "*.yaml"))
		if len(fs) == 0 {
			t.Errorf("rule %s has no fixtures in %s", r.ID, rulesDir)
		}
		files = append(files, fs...)
	}
	checked := 0
	for _, file := range files {
		fx, err := rulestest.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		if fx.Model != winsupport.Default() {
			continue // the server is the newest release only
		}
		ins, errs := manifest.Inputs([]string{file}, nil)
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		res, err := engine.Run(ctx, ins, engine.Options{Rules: apiRules, Cluster: cluster.Reference(), Model: winsupport.Default()})
		if err != nil {
			t.Fatal(err)
		}
		objs, lerrs := manifest.ReadAll(ins)
		if len(lerrs) > 0 {
			t.Fatal(lerrs[0])
		}
		byObj := findingsByObject(res.Findings)
		for _, obj := range objs {
			if obj.Workload() == nil {
				continue
			}
			found := byObj[docItem{obj.Doc, obj.Item}]
			got, err := dryRunErrors(ctx, dyn, ns, obj.APIVersion, obj.Kind, obj.Typed)
			if err != nil {
				t.Errorf("%s %s: %v", file, obj.Ref(), err)
				continue
			}
			checked++
			for _, f := range found {
				if !slices.Contains(got, f.Message) {
					t.Errorf("%s:%d: %s reported %q; the API server said:\n\t%s", file, f.Line, f.Rule, f.Message, strings.Join(got, "\n\t"))
				}
			}
			for _, g := range got {
				if predicted(g) && !slices.ContainsFunc(found, func(f rule.Finding) bool { return f.Message == g }) {
					t.Errorf("%s %s: the API server said %q; no rule found it", file, obj.Ref(), g)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d objects checked against the API server", checked)
	}
}

// docItem identifies an object within its file.
type docItem struct{ doc, item int }

// findingsByObject groups the error-severity findings by object. Warnings
// predict what the API server will say once spec.os.name is set, not now.
func findingsByObject(fs []rule.Finding) map[docItem][]rule.Finding {
	out := map[docItem][]rule.Finding{}
	for _, f := range fs {
		if f.Severity == rule.Error && f.Rule != rules.LoadError.ID {
			k := docItem{f.Object.Doc, f.Object.Item}
			out[k] = append(out[k], f)
		}
	}
	return out
}

// dryRunErrors creates obj (a typed object) with dryRun=All and returns the
// API server's field errors as "path: detail", or nil when it accepts it.
func dryRunErrors(ctx context.Context, dyn dynamic.Interface, ns, apiVersion, kind string, obj any) ([]string, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	// Every kind in the fixtures has the regular plural.
	gvr := gv.WithResource(strings.ToLower(kind) + "s")
	_, err = dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	var status *apierrors.StatusError
	switch {
	case err == nil:
		return nil, nil
	case !errors.As(err, &status) || !apierrors.IsInvalid(err) || status.ErrStatus.Details == nil:
		return nil, fmt.Errorf("create: %w", err)
	}
	var out []string
	for _, c := range status.ErrStatus.Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out, nil
}
