package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/controlplane"
)

// server is a real kube-apiserver with a client that collects the warnings
// of each request.
type server struct {
	cp   *controlplane.ControlPlane
	kube kubernetes.Interface
	dyn  dynamic.Interface
	mu   sync.Mutex
	warn []string
}

func (s *server) HandleWarningHeader(_ int, _ string, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warn = append(s.warn, text)
}

func startServer(t testing.TB) *server {
	t.Helper()
	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true})
	s := &server{cp: cp, kube: cp.Client}
	s.dyn = s.dynamicClient(t, s)
	return s
}

// dynamicClient is a dynamic client of the server that hands the
// warnings of its requests to h.
func (s *server) dynamicClient(t testing.TB, h rest.WarningHandler) dynamic.Interface {
	t.Helper()
	cfg := rest.CopyConfig(s.cp.Config)
	cfg.WarningHandler = h
	cfg.QPS, cfg.Burst = 1000, 2000
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// exported decodes a multi-document YAML stream, an export, into its
// objects.
func exported(t testing.TB, y []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(y), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decoding the export: %v", err)
		}
		if len(u.Object) != 0 {
			out = append(out, &u)
		}
	}
}

// apply creates every object of a multi-document YAML stream except the
// params ConfigMap, which each test namespace gets its own of.
func (s *server) apply(t testing.TB, y []byte) {
	t.Helper()
	for _, u := range exported(t, y) {
		if u.GetKind() == "ConfigMap" {
			continue
		}
		if err := s.create(t, u); err != nil {
			t.Fatalf("the API server refuses the exported %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// winkube runs the command line in-process and returns its exit code,
// standard output and standard error.
func winkube(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// exportAsAUser is `winkube policy export --cluster <cluster>` with every
// other flag at its default, as a user pipes it into kubectl apply.
func exportAsAUser(t testing.TB, clusterFlag string) []byte {
	t.Helper()
	code, out, errOut := winkube(t, "policy", "export", "--cluster", clusterFlag)
	if code != cli.ExitClean {
		t.Fatalf("winkube policy export exited %d: %s", code, errOut)
	}
	return []byte(out)
}

// applyAll creates every object of an export as kubectl apply would,
// the params ConfigMap in its namespace included.
func (s *server) applyAll(t testing.TB, y []byte) {
	t.Helper()
	for _, u := range exported(t, y) {
		var err error
		if u.GetKind() == "ConfigMap" {
			var cm corev1.ConfigMap
			if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm); err == nil {
				_, err = s.kube.CoreV1().ConfigMaps(cm.Namespace).Create(t.Context(), &cm, metav1.CreateOptions{})
			}
		} else {
			err = s.create(t, u)
		}
		if err != nil {
			t.Fatalf("the API server refuses the exported %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// create creates one exported object through the typed client.
func (s *server) create(t testing.TB, u *unstructured.Unstructured) error {
	ar := s.kube.AdmissionregistrationV1()
	var err error
	switch u.GetKind() {
	case "ValidatingAdmissionPolicy":
		var o admissionregistrationv1.ValidatingAdmissionPolicy
		if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o); err == nil {
			_, err = ar.ValidatingAdmissionPolicies().Create(t.Context(), &o, metav1.CreateOptions{})
		}
	case "ValidatingAdmissionPolicyBinding":
		var o admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o); err == nil {
			_, err = ar.ValidatingAdmissionPolicyBindings().Create(t.Context(), &o, metav1.CreateOptions{})
		}
	case "MutatingAdmissionPolicy":
		var o admissionregistrationv1.MutatingAdmissionPolicy
		if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o); err == nil {
			_, err = ar.MutatingAdmissionPolicies().Create(t.Context(), &o, metav1.CreateOptions{})
		}
	case "MutatingAdmissionPolicyBinding":
		var o admissionregistrationv1.MutatingAdmissionPolicyBinding
		if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o); err == nil {
			_, err = ar.MutatingAdmissionPolicyBindings().Create(t.Context(), &o, metav1.CreateOptions{})
		}
	default:
		err = fmt.Errorf("unexpected kind in the export")
	}
	return err
}

// namespace creates a namespace with labels and its params ConfigMap.
func (s *server) namespace(t testing.TB, name string, labels map[string]string, c *cluster.Cluster, m winsupport.Model) {
	t.Helper()
	ctx := t.Context()
	if _, err := s.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := policy.Params(c, m, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.kube.CoreV1().ConfigMaps(name).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// outcome is what the API server said to a dry-run create.
type outcome struct {
	obj      *unstructured.Unstructured // the object as it would be stored
	warnings []string
	err      error
}

// dryRun creates obj in ns with dryRun=All. Requests are sequential, so
// that warnings belong to their request.
func (s *server) dryRun(ctx context.Context, ns string, obj *manifest.Object) outcome {
	u, gvr, err := toUnstructured(obj, ns)
	if err != nil {
		return outcome{err: err}
	}
	s.mu.Lock()
	s.warn = nil
	s.mu.Unlock()
	out, err := s.dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	s.mu.Lock()
	defer s.mu.Unlock()
	return outcome{obj: out, warnings: append([]string(nil), s.warn...), err: err}
}

// toUnstructured is obj as the request body of a create in ns, and the
// resource to create it in.
func toUnstructured(obj *manifest.Object, ns string) (*unstructured.Unstructured, schema.GroupVersionResource, error) {
	raw, err := json.Marshal(obj.Typed)
	if err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	u.SetAPIVersion(obj.APIVersion)
	u.SetKind(obj.Kind)
	u.SetNamespace(ns)
	if u.GetName() == "" {
		u.SetName("unnamed")
	}
	u.SetResourceVersion("")
	gv, _ := schema.ParseGroupVersion(obj.APIVersion)
	return u, gv.WithResource(served[obj.APIVersion+"/"+obj.Kind]), nil
}

var (
	warnRE   = regexp.MustCompile(`^Validation failed for ValidatingAdmissionPolicy '([^']*)' with binding '[^']*': ([a-z0-9-]+): `)
	deniedRE = regexp.MustCompile(`ValidatingAdmissionPolicy '([^']*)' with binding '[^']*' denied request: ([a-z0-9-]+): `)
)

// policyRules splits an outcome into the rule IDs the policies warned
// about and the one they denied for; anything else the policies said (an
// evaluation error) is returned as a problem.
func policyRules(o outcome, prefix string) (warned map[string]bool, denied string, problems []string) {
	warned = map[string]bool{}
	for _, w := range o.warnings {
		if m := warnRE.FindStringSubmatch(w); m != nil && strings.HasPrefix(m[1], prefix) {
			warned[m[2]] = true
			continue
		}
		if strings.Contains(w, "AdmissionPolicy") {
			problems = append(problems, "unexpected policy warning: "+w)
		}
	}
	if o.err != nil && strings.Contains(o.err.Error(), "AdmissionPolicy") {
		if m := deniedRE.FindStringSubmatch(o.err.Error()); m != nil && strings.HasPrefix(m[1], prefix) {
			denied = m[2]
		} else {
			problems = append(problems, "policy failure: "+o.err.Error())
		}
	}
	return warned, denied, problems
}

// policyMessages are the messages of the policies' warnings by rule ID,
// without the API server's prefix and the rule ID.
func policyMessages(o outcome, prefix string) map[string][]string {
	out := map[string][]string{}
	for _, w := range o.warnings {
		if m := warnRE.FindStringSubmatch(w); m != nil && strings.HasPrefix(m[1], prefix) {
			out[m[2]] = append(out[m[2]], w[len(m[0]):])
		}
	}
	return out
}

// rejectedByValidation reports whether the API server refused the object
// itself (field validation), before admission policies run.
func rejectedByValidation(o outcome) bool {
	return o.err != nil && (apierrors.IsInvalid(o.err) || apierrors.IsBadRequest(o.err) || apierrors.IsForbidden(o.err)) &&
		!strings.Contains(o.err.Error(), "AdmissionPolicy")
}

// waitActive polls a canary until the policies in ns answer for it.
func (s *server) waitActive(t testing.TB, ns string, canary *manifest.Object, ready func(outcome) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last outcome
	for time.Now().Before(deadline) {
		if last = s.dryRun(t.Context(), ns, canary); ready(last) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("namespace %s: the exported policies did not take effect within 60s; last answer to the canary: warnings %q, error %v", ns, last.warnings, last.err)
}

func mustObject(t testing.TB, y string) *manifest.Object {
	t.Helper()
	objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput("canary.yaml", []byte(y))})
	if len(errs) > 0 || len(objs) != 1 {
		t.Fatalf("canary: %v", errs)
	}
	return objs[0]
}

func nsName(parts ...string) string {
	return strings.ToLower(strings.NewReplacer(".", "-", "_", "-").Replace(strings.Join(parts, "-")))
}
