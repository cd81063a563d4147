package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

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
// checks them against the CRDs' OpenAPI schemas and CEL rules.
// TestKyvernoAgreesWithLint runs them with Kyverno itself.
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
		kinds := map[string]int{}
		for _, u := range exported(t, y) {
			gvk := u.GroupVersionKind()
			gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: map[string]string{"ClusterPolicy": "clusterpolicies", "MutatingPolicy": "mutatingpolicies"}[gvk.Kind]}
			if gvr.Resource == "" {
				t.Fatalf("unexpected %s in the kyverno export", gvk)
			}
			if _, err := s.dyn.Resource(gvr).Create(t.Context(), u, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
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

var kyvernoClusters = flag.String("kyverno-clusters", "reference", "comma-separated cluster profiles (rule-fixture names) TestKyvernoAgreesWithLint exports the Kyverno policies for")

// kyvernoCLI builds (or finds cached) the Kyverno CLI with
// hack/build-kyverno.sh and returns its path; the test fails when it
// cannot.
func kyvernoCLI(t *testing.T) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join(root, "hack/build-kyverno.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) == 0 || lines[len(lines)-1] == "" {
		t.Fatalf("hack/build-kyverno.sh could not build the Kyverno CLI %s: %v\n%s", policy.KyvernoVersion, err, stderr.String())
	}
	return lines[len(lines)-1]
}

// kyvernoResult is one entry of the report `kyverno apply --policy-report
// --output-format json` prints (an openreports.io ClusterReport).
type kyvernoResult struct {
	Policy    string `json:"policy"`
	Result    string `json:"result"`
	Message   string `json:"message"`
	Resources []struct {
		Kind, Name string
	} `json:"resources"`
}

// kyvernoApply runs `kyverno apply` of the policies over the resources
// and returns its report's results.
func kyvernoApply(t *testing.T, bin, dir string, policies, resources []byte) []kyvernoResult {
	t.Helper()
	pf, rf := filepath.Join(dir, "policies.yaml"), filepath.Join(dir, "resources.yaml")
	if err := os.WriteFile(pf, policies, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rf, resources, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "apply", pf, "--resource", rf, "--policy-report", "--output-format", "json", "--remove-color", "--continue-on-fail")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output() // exits non-zero when a policy fails; the report says why
	// The CLI prints its deprecation warnings on stdout before the report.
	i := bytes.IndexByte(out, '{')
	var report struct {
		Results []kyvernoResult `json:"results"`
	}
	if i < 0 || json.Unmarshal(out[i:], &report) != nil {
		t.Fatalf("kyverno apply %s --resource %s gave no JSON report:\n%s\n%s", pf, rf, out, stderr.String())
	}
	return report.Results
}

// TestKyvernoAgreesWithLint runs the exported Kyverno policies (enforce
// mode) with Kyverno's own engine, `kyverno apply` of the CLI
// hack/build-kyverno.sh builds, over every rule fixture's and the real
// corpus's workloads under several cluster profiles (one export each: the
// Kyverno policies carry the cluster), and holds each object's result per
// policy (one ClusterPolicy per severity) to lint: fail exactly when lint
// reports a finding of that severity of an exported rule, the message
// naming one of those rules in lint's words; pass or skip otherwise.
func TestKyvernoAgreesWithLint(t *testing.T) {
	bin := kyvernoCLI(t)
	m := winsupport.Default()
	covered := coveredRules(m)
	samples := fixtureSamplesAnyCluster(t)
	samples = append(samples, corpusSamples(t)...)
	var resources bytes.Buffer
	names := map[string]sample{}
	for i, smp := range samples {
		u, _, err := toUnstructured(smp.obj, "default")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("o%d", i)
		u.SetName(name)
		u.SetGenerateName("")
		names[smp.obj.Kind+"/"+name] = smp
		y, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		resources.WriteString("---\n")
		resources.Write(y)
	}
	for _, cname := range strings.Split(*kyvernoClusters, ",") {
		t.Run(cname, func(t *testing.T) {
			newCluster := testClusters[cname]
			if newCluster == nil {
				t.Fatalf("unknown cluster %q", cname)
			}
			y, err := policy.Export(policy.Options{Rules: rules.Suite(), Model: m, Cluster: newCluster(), Mode: policy.Enforce}, "kyverno")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			results := kyvernoApply(t, bin, t.TempDir(), y, resources.Bytes())
			t.Logf("kyverno apply: %d objects, %d results in %s", len(samples), len(results), time.Since(start).Round(time.Second))
			got := map[string]map[string]kyvernoResult{} // object, policy
			for _, r := range results {
				if len(r.Resources) != 1 {
					t.Errorf("result without one resource: %+v", r)
					continue
				}
				k := r.Resources[0].Kind + "/" + r.Resources[0].Name
				if got[k] == nil {
					got[k] = map[string]kyvernoResult{}
				}
				got[k][r.Policy] = r
			}
			var compared, fails, bad int
			for k, smp := range names {
				fs := lintOf(smp.obj, covered, newCluster(), m)
				if outOfScope(smp.obj) != "" {
					fs = nil
				}
				for _, s := range []rule.Severity{rule.Error, rule.Warning, rule.Info} {
					want := ids(fs, func(f rule.Finding) bool { return f.Severity == s })
					r, ok := got[k]["winkube-"+s.String()]
					compared++
					var problem string
					switch {
					case !ok:
						problem = "no result"
					case r.Result == "fail" && len(want) > 0:
						fails++
						id, detail, _ := strings.Cut(r.Message, ": ")
						if !slices.Contains(want, id) {
							problem = fmt.Sprintf("failed for %s, lint reports %v", id, want)
						} else if diff := messagesAgree(id, []string{detail}, ofSeverity(fs, s)); diff != "" {
							problem = "message of " + diff
						}
					case r.Result == "fail":
						problem = fmt.Sprintf("failed (%s), lint reports nothing at %s", r.Message, s)
					case len(want) > 0:
						problem = fmt.Sprintf("%s (%s), lint reports %v", r.Result, r.Message, want)
					case r.Result != "pass" && r.Result != "skip":
						problem = fmt.Sprintf("%s: %s", r.Result, r.Message)
					}
					if problem != "" {
						bad++
						if bad <= 30 {
							t.Errorf("%s under %s, policy winkube-%s: %s%s", smp.name, cname, s, problem, describe(fs))
						}
					}
				}
			}
			t.Logf("%d object×policy results compared, %d failures as lint's, %d disagreements", compared, fails, bad)
			if fails == 0 {
				t.Error("no object failed any policy: the comparison proves nothing")
			}
		})
	}
}

// ofSeverity is the findings of severity s: one rule can report an error
// and a warning (windows-unsupported-volume: an unsupported volume type,
// a Linux hostPath), and each ClusterPolicy carries one severity's.
func ofSeverity(fs []rule.Finding, s rule.Severity) []rule.Finding {
	var out []rule.Finding
	for _, f := range fs {
		if f.Severity == s {
			out = append(out, f)
		}
	}
	return out
}
