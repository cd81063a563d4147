package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/webhook"
	"github.com/winkube/winkube/test/controlplane"
)

// deployManifests is the plain install the end-to-end test registers.
const deployManifests = "../../../deploy/webhook.yaml"

// e2e is a real kube-apiserver (and scheduler) with winkube's webhook
// running in-process on 127.0.0.1 and registered as deploy/webhook.yaml
// registers it, but by URL instead of through the Service.
type e2e struct {
	cp       *controlplane.ControlPlane
	client   kubernetes.Interface // collects the API server's warnings
	warnings *warningLog
	dir      string // certificate and config files
	config   string // the config the ConfigMap of deploy/webhook.yaml ships
	caPEM    []byte
	url      string // https://127.0.0.1:PORT
	stop     func() error
	logs     *syncBuffer
	// The webhook configurations of deploy/webhook.yaml; once registered,
	// as the API server stored them.
	mutating   *admissionregistrationv1.MutatingWebhookConfiguration
	validating *admissionregistrationv1.ValidatingWebhookConfiguration
}

// warningLog collects the warnings of API responses (rest.WarningHandler).
type warningLog struct {
	mu    sync.Mutex
	texts []string
}

func (w *warningLog) HandleWarningHeader(code int, _, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, text)
}

// take returns the warnings collected since the last call.
func (w *warningLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.texts
	w.texts = nil
	return t
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startE2E starts the control plane, creates the objects of
// deploy/webhook.yaml (none may be refused or warned about), starts the
// webhook with the shipped config and registers it.
func startE2E(t testing.TB, opts controlplane.Options) *e2e {
	t.Helper()
	e := newE2E(t, opts)
	e.register(t)
	return e
}

// newE2E is startE2E without registering the webhook with the API server.
func newE2E(t testing.TB, opts controlplane.Options) *e2e {
	t.Helper()
	e := &e2e{cp: controlplane.StartT(t, opts), warnings: &warningLog{}, dir: t.TempDir(), logs: &syncBuffer{}}
	cfg := rest.CopyConfig(e.cp.Config)
	cfg.WarningHandler = e.warnings
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.client = client
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("webhook log:\n%s", e.logs.String())
		}
	})
	mutating, validating := e.createDeployObjects(t, cfg)

	caPEM, certPEM, keyPEM, err := webhook.GenerateCerts("winkube-webhook", "winkube-system", time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	e.caPEM = caPEM
	writeFile(t, filepath.Join(e.dir, "tls.crt"), string(certPEM))
	writeFile(t, filepath.Join(e.dir, "tls.key"), string(keyPEM))
	writeFile(t, filepath.Join(e.dir, "config.yaml"), e.config)
	e.mutating, e.validating = mutating, validating
	e.startWebhook(t)
	return e
}

// createDeployObjects creates every object of deploy/webhook.yaml but the
// webhook configurations, which it returns, and keeps the ConfigMap's
// config.
func (e *e2e) createDeployObjects(t testing.TB, cfg *rest.Config) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	t.Helper()
	data, err := os.ReadFile(deployManifests)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	s := manifest.NewSplitter(deployManifests, bytes.NewReader(data), false)
	for {
		doc, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc.Data, &u.Object); err != nil {
			t.Fatalf("%s:%d: %v", deployManifests, doc.Line, err)
		}
		switch u.GetKind() {
		case "MutatingWebhookConfiguration":
			mustUnmarshal(t, doc.Data, &m)
			continue
		case "ValidatingWebhookConfiguration":
			mustUnmarshal(t, doc.Data, &v)
			continue
		case "ConfigMap":
			e.config, _, _ = unstructured.NestedString(u.Object, "data", "config.yaml")
		}
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s:%d: %v", deployManifests, doc.Line, err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if ns := u.GetNamespace(); ns != "" {
			ri = dyn.Resource(mapping.Resource).Namespace(ns)
		}
		if _, err := ri.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the API server refuses %s %s of deploy/webhook.yaml: %v", u.GetKind(), u.GetName(), err)
		}
		if w := e.warnings.take(); len(w) > 0 {
			t.Errorf("the API server warns about %s %s of deploy/webhook.yaml: %q", u.GetKind(), u.GetName(), w)
		}
		if u.GetKind() == "Deployment" {
			e.checkPodSecurity(t, doc.Data)
		}
	}
	if e.config == "" || len(m.Webhooks) != 1 || len(v.Webhooks) != 1 {
		t.Fatalf("%s: want a ConfigMap with config.yaml and one webhook in each configuration", deployManifests)
	}
	return &m, &v
}

// checkPodSecurity creates the Deployment's pod (dry run) in its namespace,
// which deploy/webhook.yaml labels to enforce the restricted Pod Security
// Standard: Pod Security admission checks pods, not their templates.
func (e *e2e) checkPodSecurity(t testing.TB, deployment []byte) {
	t.Helper()
	var d appsv1.Deployment
	mustUnmarshal(t, deployment, &d)
	pod := &corev1.Pod{ObjectMeta: d.Spec.Template.ObjectMeta, Spec: d.Spec.Template.Spec}
	pod.Name, pod.Namespace = d.Name+"-pss", d.Namespace
	if _, err := e.dryRunPod(t, d.Namespace, pod); err != nil {
		t.Errorf("the pod of deploy/webhook.yaml's Deployment is refused: %v", err)
	}
	if w := e.warnings.take(); len(w) > 0 {
		t.Errorf("the API server warns about the pod of deploy/webhook.yaml's Deployment: %q", w)
	}
}

func mustUnmarshal(t testing.TB, data []byte, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startWebhook runs the webhook on 127.0.0.1:0 until stop or the end of
// the test, and waits for /readyz.
func (e *e2e) startWebhook(t testing.TB) {
	t.Helper()
	srv, err := webhook.New(webhook.Options{
		Addr:           "127.0.0.1:0",
		CertFile:       filepath.Join(e.dir, "tls.crt"),
		KeyFile:        filepath.Join(e.dir, "tls.key"),
		ConfigPath:     filepath.Join(e.dir, "config.yaml"),
		Logger:         slog.New(slog.NewJSONHandler(e.logs, nil)),
		ReloadInterval: 50 * time.Millisecond,
		DrainDelay:     -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var once sync.Once
	var runErr error
	e.stop = func() error {
		once.Do(func() { cancel(); runErr = <-done })
		return runErr
	}
	t.Cleanup(func() { _ = e.stop() })
	waitUntil(t, "the webhook listens", func() (bool, string) {
		select {
		case err := <-done:
			t.Fatalf("webhook exited: %v", err)
		default:
		}
		return srv.Addr() != nil, "no address yet"
	})
	e.url = "https://" + srv.Addr().(*net.TCPAddr).AddrPort().String()
	waitUntil(t, "the webhook is ready", func() (bool, string) {
		code, err := e.get("/readyz")
		return code == http.StatusOK, fmt.Sprintf("readyz %d %v", code, err)
	})
}

// get fetches a path of the webhook, trusting only its CA.
func (e *e2e) get(path string) (int, error) {
	tr := &http.Transport{TLSClientConfig: webhookTLS(e.caPEM)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(e.url + path)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// register creates the webhook configurations of deploy/webhook.yaml, each
// pointed at the in-process webhook by URL with the generated caBundle.
func (e *e2e) register(t testing.TB) {
	t.Helper()
	m, v := e.mutating.DeepCopy(), e.validating.DeepCopy()
	byURL := func(cc *admissionregistrationv1.WebhookClientConfig) {
		url := e.url + *cc.Service.Path
		*cc = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: e.caPEM}
	}
	byURL(&m.Webhooks[0].ClientConfig)
	byURL(&v.Webhooks[0].ClientConfig)
	ctx := t.Context()
	var err error
	if e.mutating, err = e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, m, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if e.validating, err = e.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, v, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := e.warnings.take(); len(w) > 0 {
		t.Errorf("the API server warns about the webhook configurations: %q", w)
	}
	// The API server picks registrations up from an informer: wait until a
	// Windows pod comes back mutated from a dry run.
	waitUntil(t, "the API server calls the webhook", func() (bool, string) {
		got, err := e.dryRunPod(t, "default", windowsPod("probe"))
		if err != nil {
			return false, err.Error()
		}
		return len(osTolerations(&got.Spec)) > 0, fmt.Sprintf("tolerations %v", got.Spec.Tolerations)
	})
	e.warnings.take()
}

func (e *e2e) dryRunPod(t testing.TB, ns string, pod *corev1.Pod) (*corev1.Pod, error) {
	return e.client.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// waitUntil polls cond every 50ms for up to 30s.
func waitUntil(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s; last: %s", what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func webhookTLS(caPEM []byte) *tls.Config {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// windowsPod is a Windows pod that says so only with spec.os.name: no
// kubernetes.io/os selector and no toleration of the Windows taint.
func windowsPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			OS: &corev1.PodOS{Name: corev1.Windows},
			Containers: []corev1.Container{{
				Name: "app", Image: "mcr.microsoft.com/windows/servercore:ltsc2022",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
			}},
		},
	}
}

// windowsToleration is the toleration of the reference cluster's taint.
var windowsToleration = corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}

// placed is windowsPod with the selector and toleration it needs.
func placed(p *corev1.Pod) *corev1.Pod {
	p.Spec.NodeSelector = map[string]string{corev1.LabelOSStable: "windows"}
	p.Spec.Tolerations = []corev1.Toleration{windowsToleration}
	return p
}
