package deploy

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/test/controlplane"
)

const chartDir = "../charts/winkube-webhook"

// render renders the chart as `helm template` would, with Helm's own engine
// in strict mode (a reference to a missing value is an error), and returns
// the manifests in Helm's install order of files.
func render(t *testing.T, release, ns string, values map[string]any) string {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Validate(); err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: release, Namespace: ns, IsInstall: true, Revision: 1},
		chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Engine{Strict: true, LintMode: false}.Render(ch, vals)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".yaml") || strings.TrimSpace(files[name]) == "" {
			continue
		}
		b.WriteString("---\n# Source: " + name + "\n" + files[name] + "\n")
	}
	return b.String()
}

// TestChartKubeVersion: the chart installs on the Kubernetes version the
// project is built and tested against.
func TestChartKubeVersion(t *testing.T) {
	t.Parallel()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, controlplane.KubernetesVersion) {
		t.Errorf("Chart.yaml kubeVersion %q excludes %s", ch.Metadata.KubeVersion, controlplane.KubernetesVersion)
	}
}

// TestChartRendersDeployManifests: with an existing Secret, the chart
// renders exactly the objects of webhook.yaml, but for Helm's own labels and
// the Namespace, which a chart does not own.
func TestChartRendersDeployManifests(t *testing.T) {
	t.Parallel()
	out := render(t, "winkube-webhook", namespace, map[string]any{
		"tls": map[string]any{"generate": false, "secretName": tlsSecret},
	})
	want := map[string]map[string]any{}
	for _, o := range readManifests(t) {
		if o.Kind != "Namespace" {
			want[o.Kind+"/"+o.Name] = normalize(o.Fields)
		}
	}
	got := map[string]map[string]any{}
	for _, o := range decodeStream(t, "rendered chart", []byte(out)) {
		got[o.Kind+"/"+o.Name] = normalize(o.Fields)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chart (-webhook.yaml +rendered):\n%s\nrendered:\n%s", diff, out)
	}
}

// helmLabels are the labels only a Helm release carries.
var helmLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}

// normalize drops Helm's labels wherever labels are matched or set, and
// decodes the webhook config text so that formatting does not matter.
func normalize(obj map[string]any) map[string]any {
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				if !slices.Contains(helmLabels, k) {
					out[k] = walk(e)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	n := walk(obj).(map[string]any)
	if data, ok := n["data"].(map[string]any); ok && n["kind"] == "ConfigMap" {
		if text, ok := data["config.yaml"].(string); ok {
			var cfg map[string]any
			if err := yaml.Unmarshal([]byte(text), &cfg); err == nil {
				data["config.yaml"] = cfg
			}
		}
	}
	return n
}

// TestChartValues renders the chart for other releases and settings and
// holds every rendering to the same requirements as webhook.yaml.
func TestChartValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, release, ns string
		values            map[string]any
		failurePolicy     admissionregistrationv1.FailurePolicyType
		excluded          []string
		nodeSelector      map[string]string
	}{
		{
			name: "defaults", release: "winkube-webhook", ns: "winkube-system",
			failurePolicy: "Ignore", excluded: []string{"kube-system", "winkube-system"},
			nodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		},
		{
			name: "other release, fail closed, more exclusions", release: "guard", ns: "platform",
			values: map[string]any{
				"webhook":      map[string]any{"failurePolicy": "Fail"},
				"config":       map[string]any{"mode": "warn", "excludeNamespaces": []any{"monitoring", "kube-system"}},
				"nodeSelector": map[string]any{"kubernetes.io/os": "windows", "pool": "system"},
			},
			failurePolicy: "Fail", excluded: []string{"kube-system", "platform", "monitoring"},
			nodeSelector: map[string]string{"kubernetes.io/os": "linux", "pool": "system"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := render(t, tt.release, tt.ns, tt.values)
			for _, f := range lintAtWarning(t, "-", out) {
				t.Errorf("lint: line %d: %s: %s [%s]", f.Line, f.Severity, f.Message, f.Rule)
			}
			objs := decodeStream(t, "rendered chart", []byte(out))
			var d appsv1.Deployment
			into(t, only(t, objs, "Deployment"), &d)
			var secret corev1.Secret
			into(t, only(t, objs, "Secret"), &secret)
			var cm corev1.ConfigMap
			into(t, only(t, objs, "ConfigMap"), &cm)
			checkDeployment(t, &d, secret.Name, cm.Name)
			if !cmp.Equal(d.Spec.Template.Spec.NodeSelector, tt.nodeSelector) {
				t.Errorf("nodeSelector %v, want %v", d.Spec.Template.Spec.NodeSelector, tt.nodeSelector)
			}
			var m admissionregistrationv1.MutatingWebhookConfiguration
			into(t, only(t, objs, "MutatingWebhookConfiguration"), &m)
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			into(t, only(t, objs, "ValidatingWebhookConfiguration"), &v)
			checkRegistrations(t, &m, &v, tt.ns, tt.excluded)
			if *m.Webhooks[0].FailurePolicy != tt.failurePolicy || *v.Webhooks[0].FailurePolicy != tt.failurePolicy {
				t.Errorf("failurePolicy %s/%s, want %s", *m.Webhooks[0].FailurePolicy, *v.Webhooks[0].FailurePolicy, tt.failurePolicy)
			}
			cfg := loadWebhookConfig(t, cm.Data)
			if !slices.Equal(cfg.Namespaces.Exclude, tt.excluded) {
				t.Errorf("config excludes %v, the registrations %v", cfg.Namespaces.Exclude, tt.excluded)
			}
			checkGeneratedTLS(t, &secret, m.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle,
				d.Name+"."+tt.ns+".svc")
		})
	}
}

// checkGeneratedTLS: the generated serving certificate verifies, for the
// Service's DNS name, against the CA both registrations trust, and its key
// is the one in the Secret.
func checkGeneratedTLS(t *testing.T, s *corev1.Secret, mutatingCA, validatingCA []byte, host string) {
	t.Helper()
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %q, want %q", s.Type, corev1.SecretTypeTLS)
	}
	if len(mutatingCA) == 0 || string(mutatingCA) != string(validatingCA) {
		t.Fatalf("caBundles differ or are empty: %q vs %q", mutatingCA, validatingCA)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(mutatingCA) {
		t.Fatalf("caBundle is not a PEM certificate: %q", mutatingCA)
	}
	block, _ := pem.Decode(s.Data[corev1.TLSCertKey])
	if block == nil {
		t.Fatal("Secret tls.crt is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
		t.Errorf("serving certificate does not verify for %s: %v", host, err)
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		t.Errorf("tls.crt and tls.key do not match: %v", err)
	}
	if string(s.Data["ca.crt"]) != string(mutatingCA) {
		t.Error("Secret ca.crt is not the caBundle")
	}
}
