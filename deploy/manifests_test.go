package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/webhook"
)

const (
	namespace = "winkube-system"
	tlsSecret = "winkube-webhook-tls"
)

// TestManifestsLintClean runs the whole rule suite over deploy/, as
// `winkube lint deploy/` does.
func TestManifestsLintClean(t *testing.T) {
	t.Parallel()
	for _, f := range lintAtWarning(t, ".") {
		t.Errorf("%s:%d:%d: %s: %s [%s]", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
	}
}

// TestManifestsObjects pins the set of objects: in particular, no Role or
// ClusterRole, because the webhook reads nothing from the API server.
func TestManifestsObjects(t *testing.T) {
	t.Parallel()
	got := kinds(readManifests(t))
	want := "Namespace/winkube-system, ServiceAccount/winkube-webhook, ConfigMap/winkube-webhook-config, " +
		"Deployment/winkube-webhook, PodDisruptionBudget/winkube-webhook, Service/winkube-webhook, " +
		"MutatingWebhookConfiguration/winkube-webhook, ValidatingWebhookConfiguration/winkube-webhook"
	if got != want {
		t.Errorf("objects:\n got %s\nwant %s", got, want)
	}
}

func TestDeploymentHardening(t *testing.T) {
	t.Parallel()
	objs := readManifests(t)
	var d appsv1.Deployment
	into(t, only(t, objs, "Deployment"), &d)
	checkDeployment(t, &d, tlsSecret, "winkube-webhook-config")

	var sa corev1.ServiceAccount
	into(t, only(t, objs, "ServiceAccount"), &sa)
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Error("ServiceAccount: automountServiceAccountToken must be false")
	}
	var pdb policyv1.PodDisruptionBudget
	into(t, only(t, objs, "PodDisruptionBudget"), &pdb)
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget minAvailable = %v, want 1", pdb.Spec.MinAvailable)
	}
	if !cmp.Equal(pdb.Spec.Selector.MatchLabels, d.Spec.Selector.MatchLabels) {
		t.Errorf("PodDisruptionBudget selects %v, the Deployment %v", pdb.Spec.Selector.MatchLabels, d.Spec.Selector.MatchLabels)
	}
	var svc corev1.Service
	into(t, only(t, objs, "Service"), &svc)
	if !cmp.Equal(svc.Spec.Selector, d.Spec.Selector.MatchLabels) {
		t.Errorf("Service selects %v, the Deployment %v", svc.Spec.Selector, d.Spec.Selector.MatchLabels)
	}
}

func TestWebhookRegistrations(t *testing.T) {
	t.Parallel()
	objs := readManifests(t)
	var m admissionregistrationv1.MutatingWebhookConfiguration
	into(t, only(t, objs, "MutatingWebhookConfiguration"), &m)
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	into(t, only(t, objs, "ValidatingWebhookConfiguration"), &v)
	checkRegistrations(t, &m, &v, namespace, []string{"kube-system", namespace})
}

// TestWebhookConfigFile loads the ConfigMap's config.yaml the way the
// webhook does, and checks that it leaves the same namespaces alone as the
// registrations' namespaceSelector.
func TestWebhookConfigFile(t *testing.T) {
	t.Parallel()
	var cm corev1.ConfigMap
	into(t, only(t, readManifests(t), "ConfigMap"), &cm)
	cfg := loadWebhookConfig(t, cm.Data)
	if cfg.Mode != webhook.Enforce {
		t.Errorf("mode = %q, want %q", cfg.Mode, webhook.Enforce)
	}
	if cfg.Namespaces == nil || !slices.Equal(cfg.Namespaces.Exclude, []string{"kube-system", namespace}) {
		t.Errorf("namespaces = %+v, want exclude [kube-system %s]", cfg.Namespaces, namespace)
	}
}

// TestReadmeStatesFailurePolicy keeps deploy/README.md honest about the
// failurePolicy the manifests ship with.
func TestReadmeStatesFailurePolicy(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("The manifests and the chart use `failurePolicy: (\\w+)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not say which failurePolicy the manifests use")
	}
	for _, o := range readManifests(t) {
		for _, wh := range webhooksOf(o) {
			if got := wh["failurePolicy"]; got != string(m[1]) {
				t.Errorf("%s %s: failurePolicy %v, README.md says %s", o.Kind, wh["name"], got, m[1])
			}
		}
	}
}

func webhooksOf(o object) []map[string]any {
	list, _ := o.Fields["webhooks"].([]any)
	var out []map[string]any
	for _, w := range list {
		out = append(out, w.(map[string]any))
	}
	return out
}

func loadWebhookConfig(t *testing.T, data map[string]string) *webhook.WebhookConfig {
	t.Helper()
	text, ok := data["config.yaml"]
	if !ok {
		t.Fatalf("ConfigMap has no config.yaml key; keys: %v", data)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := webhook.LoadConfig(path, catalogue.Rules())
	if err != nil {
		t.Fatalf("the webhook rejects the shipped config: %v", err)
	}
	return cfg
}
