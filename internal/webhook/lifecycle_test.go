package webhook

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/winkube/winkube/internal/rule"
)

// TestConfigReload checks that a changed config applies without a
// restart and that a bad one is logged, with its line, and ignored.
func TestConfigReload(t *testing.T) {
	t.Parallel()
	f := start(t, configHeader+"mode: enforce\n", nil)
	path := filepath.Join(f.dir, "config.yaml")
	bad := func() *admissionv1.AdmissionResponse {
		return f.admit("validate", review(t, object(t, kinds[0], "web", "shop", specWindowsRunAsUser, nil), ""))
	}
	if bad().Allowed {
		t.Fatal("enforce: allowed")
	}
	writeFile(t, path, configHeader+"mode: warn\n")
	waitFor(t, "warn mode", func() bool { return bad().Allowed })

	writeFile(t, path, configHeader+"mode: enforce\nrules: {disable: [windows-forbidden-fields]}\n")
	waitFor(t, "the bad config's error", func() bool {
		return f.metric(t, MetricReloads+`{file="config",result="failure"}`) == "1"
	})
	logs := f.logs.String()
	for _, want := range []string{"webhook config not reloaded; keeping the previous one",
		`config.yaml:4:19: rules.disable[0]: unknown rule \"windows-forbidden-fields\"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	if r := bad(); !r.Allowed || len(r.Warnings) == 0 {
		t.Errorf("after a bad config: %+v, want warn mode kept", r)
	}
	if got := f.metric(t, MetricReloads+`{file="config",result="success"}`); got != "1" {
		t.Errorf("config reloads = %q, want 1", got)
	}
}

// serving returns the serial number of the certificate a new connection
// is served, checked against ca.
func (f *fixture) serving(ca []byte) (string, error) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	conn, err := tls.Dial("tcp", f.srv.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "winkube-webhook.winkube-system.svc"})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String(), nil
}

// TestCertRotation checks that new connections get a rotated certificate
// and that a broken rotation keeps the last good one.
func TestCertRotation(t *testing.T) {
	t.Parallel()
	f := start(t, "", nil)
	oldCA := f.caPEM
	first, err := f.serving(oldCA)
	if err != nil {
		t.Fatal(err)
	}
	newCA := f.writeCerts()
	var second string
	waitFor(t, "the new certificate", func() bool {
		second, err = f.serving(newCA)
		return err == nil
	})
	if second == first {
		t.Fatalf("same serial %s after rotation", first)
	}
	var unknown x509.UnknownAuthorityError
	if _, err := f.serving(oldCA); !errors.As(err, &unknown) {
		t.Errorf("a client of the old CA: %v, want unknown authority", err)
	}
	f.caPEM = newCA
	f.client = f.newClient()
	if r := f.admit("validate", review(t, object(t, kinds[0], "web", "shop", specLinuxPinned, nil), "")); !r.Allowed {
		t.Errorf("after rotation: %+v", r)
	}

	writeFile(t, filepath.Join(f.dir, "tls.crt"), "not a certificate")
	waitFor(t, "the failed reload", func() bool {
		return f.metric(t, MetricReloads+`{file="certificate",result="failure"}`) != ""
	})
	if got, err := f.serving(newCA); err != nil || got != second {
		t.Errorf("after a broken rotation: serial %s, %v; want %s kept", got, err, second)
	}
}

// blocker is a rule that holds a request named "slow" until released.
type blocker struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}), release: make(chan struct{})}
}

func (b *blocker) rule() *rule.Rule {
	return &rule.Rule{ID: "test-block", Severity: rule.Warning, Workload: func(p *rule.Pass) {
		if p.Object.Name == "slow" {
			close(b.entered)
			<-b.release
		}
	}}
}

// TestGracefulShutdown checks that a request in flight when Run's context
// ends is answered in full, that the listener closes meanwhile, and that
// Run returns nil afterwards.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	b := newBlocker()
	f := start(t, "", func(o *Options) { o.extraRules = []*rule.Rule{b.rule()} })
	body := review(t, object(t, kinds[0], "slow", "shop", specLinuxPinned, nil), "")
	type answer struct {
		code int
		body []byte
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := f.client.Post(f.base+"/validate", "application/json", bytes.NewReader(body))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, b, err}
	}()
	<-b.entered
	f.cancel()
	waitFor(t, "the listener to close", func() bool {
		c, err := net.Dial("tcp", f.srv.Addr().String())
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case err := <-f.done:
		f.done <- err // for the cleanup
		t.Fatalf("Run returned (%v) with a request in flight", err)
	default:
	}
	close(b.release)
	a := <-answered
	if a.err != nil || a.code != 200 {
		t.Fatalf("request in flight: HTTP %d %s, %v", a.code, a.body, a.err)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(a.body, &out); err != nil || out.Response == nil || !out.Response.Allowed {
		t.Errorf("request in flight: %s (%v), want an allowed AdmissionReview", a.body, err)
	}
	if err := f.stop(); err != nil {
		t.Errorf("Run: %v, want nil after a graceful shutdown", err)
	}
}

// TestDrain checks the drain after the context ends: /readyz fails,
// requests are still answered, and their connections are closed after.
func TestDrain(t *testing.T) {
	t.Parallel()
	drained := make(chan struct{})
	f := start(t, "", func(o *Options) { o.drainUntil = drained; o.DrainDelay = time.Hour })
	keepAlive := &http.Client{Transport: &http.Transport{TLSClientConfig: f.client.Transport.(*http.Transport).TLSClientConfig}}
	f.cancel()
	waitFor(t, "/readyz to fail", func() bool {
		resp, err := f.client.Get(f.base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	resp, err := keepAlive.Post(f.base+"/validate", "application/json",
		bytes.NewReader(review(t, object(t, kinds[0], "web", "shop", specLinuxPinned, nil), "")))
	if err != nil {
		t.Fatalf("during the drain: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !resp.Close {
		t.Errorf("during the drain: HTTP %d, close=%v; want 200 with Connection: close", resp.StatusCode, resp.Close)
	}
	close(drained)
	if err := f.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestHTTP2 checks that the server speaks HTTP/2, as the API server's
// webhook client does, and that a drain ends an HTTP/2 connection with a
// GOAWAY after the answer instead of failing it.
func TestHTTP2(t *testing.T) {
	t.Parallel()
	drained := make(chan struct{})
	f := start(t, "", func(o *Options) { o.drainUntil = drained; o.DrainDelay = time.Hour })
	tr := f.client.Transport.(*http.Transport).Clone()
	tr.DisableKeepAlives, tr.ForceAttemptHTTP2 = false, true
	h2 := &http.Client{Transport: tr}
	post := func() *http.Response {
		t.Helper()
		resp, err := h2.Post(f.base+"/mutate", "application/json",
			bytes.NewReader(review(t, object(t, kinds[0], "web", "shop", specWindowsUnpinned, nil), "")))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := post(); resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("%s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
	f.cancel()
	waitFor(t, "the drain", func() bool { return f.srv.impl.draining.Load() })
	if resp := post(); resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Errorf("during the drain: %s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
	close(drained)
	if err := f.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}
