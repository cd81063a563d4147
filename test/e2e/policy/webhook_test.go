package policy

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/webhook"
)

const webhookLabel = "winkube.test/webhook"

// startWebhook runs winkube's admission webhook in this process with a
// config (YAML body after apiVersion/kind) and registers it, mutating and
// validating, for the namespaces labelled winkube.test/webhook=on.
func startWebhook(t testing.TB, s *server, config string) {
	t.Helper()
	dir := t.TempDir()
	caPEM, certPEM, keyPEM, err := webhook.GenerateCerts("winkube-webhook", "winkube-system", time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"tls.crt": string(certPEM), "tls.key": string(keyPEM),
		"config.yaml": "apiVersion: winkube.io/v1alpha1\nkind: WebhookConfig\n" + config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := webhook.New(webhook.Options{Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
		ConfigPath: filepath.Join(dir, "config.yaml"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DrainDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(30 * time.Second)
	for srv.Addr() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook did not listen within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	base := "https://" + srv.Addr().(*net.TCPAddr).AddrPort().String()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{webhookLabel: "on"}}
	rules := []admissionregistrationv1.RuleWithOperations{
		rwo("", "pods", "replicationcontrollers", "podtemplates"), rwo("apps", "deployments", "statefulsets", "daemonsets", "replicasets"), rwo("batch", "jobs", "cronjobs"),
	}
	client := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := base + "/" + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caPEM}
	}
	none := admissionregistrationv1.SideEffectClassNone
	ar := s.kube.AdmissionregistrationV1()
	if _, err := ar.MutatingWebhookConfigurations().Create(t.Context(), &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "winkube"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "mutate.winkube.io", ClientConfig: client("mutate"), Rules: rules, NamespaceSelector: sel,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: ptr.To(admissionregistrationv1.Fail), TimeoutSeconds: ptr.To(int32(10))}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ar.ValidatingWebhookConfigurations().Create(t.Context(), &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "winkube"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate.winkube.io", ClientConfig: client("validate"), Rules: rules, NamespaceSelector: sel,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: ptr.To(admissionregistrationv1.Fail), TimeoutSeconds: ptr.To(int32(10))}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func rwo(group string, resources ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources},
	}
}

// onlyRules is a webhook config rules section that disables every rule
// but the given ones.
func onlyRules(ids []string) string {
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	var off []string
	for _, r := range rules.Suite() {
		if !keep[r.ID] {
			off = append(off, r.ID)
		}
	}
	return fmt.Sprintf("rules:\n  disable: [%s]\n", strings.Join(off, ", "))
}
