package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// fixture is a webhook served over TLS on 127.0.0.1 with certificate and
// config files in a temporary folder.
type fixture struct {
	t        *testing.T
	srv      *Server
	dir      string
	caPEM    []byte
	base     string // https://127.0.0.1:PORT
	client   *http.Client
	logs     *syncBuffer
	cancel   context.CancelFunc
	done     chan error
	stopOnce sync.Once
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

// start runs a server with the config (YAML; "" for none) and returns once
// it listens. adjust may change the options first.
func start(t *testing.T, config string, adjust func(*Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), logs: &syncBuffer{}, done: make(chan error, 1)}
	f.caPEM = f.writeCerts()
	opts := Options{Addr: "127.0.0.1:0", CertFile: filepath.Join(f.dir, "tls.crt"), KeyFile: filepath.Join(f.dir, "tls.key"),
		Logger: slog.New(slog.NewJSONHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), DrainDelay: -1, ReloadInterval: 20 * time.Millisecond}
	if config != "" {
		opts.ConfigPath = filepath.Join(f.dir, "config.yaml")
		writeFile(t, opts.ConfigPath, config)
	}
	if adjust != nil {
		adjust(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() { f.done <- srv.Run(ctx) }()
	t.Cleanup(func() { f.stop() })
	for srv.Addr() == nil {
		select {
		case err := <-f.done:
			t.Fatalf("Run: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	f.base = "https://" + srv.Addr().String()
	f.client = f.newClient()
	return f
}

// stop cancels Run and returns its error.
func (f *fixture) stop() error {
	var err error
	f.stopOnce.Do(func() {
		f.cancel()
		err = <-f.done
	})
	return err
}

// writeCerts writes a fresh certificate for 127.0.0.1 and returns its CA.
func (f *fixture) writeCerts() []byte {
	f.t.Helper()
	ca, cert, key, err := GenerateCerts("winkube-webhook", "winkube-system", time.Hour, "127.0.0.1")
	if err != nil {
		f.t.Fatal(err)
	}
	// The key first: a poll between the two writes sees a mismatched pair.
	writeFile(f.t, filepath.Join(f.dir, "tls.key"), string(key))
	writeFile(f.t, filepath.Join(f.dir, "tls.crt"), string(cert))
	return ca
}

// newClient trusts the CA the certificate was generated with last and
// opens new connections (keep-alives off), so every request shakes hands.
func (f *fixture) newClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(f.caPEM)
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, for at most a minute: far longer
// than anything here takes on a loaded machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var uidSeq atomic.Int64

// review builds an AdmissionReview for objYAML; oldYAML makes it an UPDATE.
func review(t *testing.T, objYAML, oldYAML string) []byte {
	t.Helper()
	obj := toJSON(t, objYAML)
	var meta struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &meta); err != nil {
		t.Fatal(err)
	}
	gv, err := schema.ParseGroupVersion(meta.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	ns := meta.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	req := &admissionv1.AdmissionRequest{
		UID:       types.UID(fmt.Sprintf("uid-%d", uidSeq.Add(1))),
		Kind:      metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: meta.Kind},
		Resource:  metav1.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: strings.ToLower(meta.Kind) + "s"},
		Name:      meta.Metadata.Name,
		Namespace: ns,
		Operation: admissionv1.Create,
	}
	req.Object.Raw = obj
	if oldYAML != "" {
		req.Operation = admissionv1.Update
		req.OldObject.Raw = toJSON(t, oldYAML)
	}
	b, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toJSON(t *testing.T, y string) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("fixture YAML: %v", err)
	}
	return j
}

// post sends body to the endpoint and returns the status code and body.
func (f *fixture) post(endpoint string, body []byte) (int, []byte) {
	f.t.Helper()
	resp, err := f.client.Post(f.base+"/"+endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		f.t.Fatalf("POST /%s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// admit posts a review and decodes the AdmissionResponse, checking the UID.
func (f *fixture) admit(endpoint string, body []byte) *admissionv1.AdmissionResponse {
	f.t.Helper()
	code, b := f.post(endpoint, body)
	if code != http.StatusOK {
		f.t.Fatalf("POST /%s: HTTP %d: %s", endpoint, code, b)
	}
	var in, out admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &in); err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		f.t.Fatalf("decoding the response: %v\n%s", err, b)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" || out.Response == nil {
		f.t.Fatalf("not an AdmissionReview response: %s", b)
	}
	if out.Response.UID != in.Request.UID {
		f.t.Fatalf("response uid %q, want %q", out.Response.UID, in.Request.UID)
	}
	return out.Response
}
