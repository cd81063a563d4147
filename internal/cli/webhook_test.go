package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func runWebhook(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut webhookLog
	code = Run(ctx, append([]string{"webhook"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestWebhookCerts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "certs")
	code, out, errOut := runWebhook(t.Context(), "certs", "--service", "winkube-webhook", "-n", "winkube-system", "--out-dir", dir, "--san", "127.0.0.1", "--ca-bundle")
	if code != ExitClean {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != base64.StdEncoding.EncodeToString(ca) {
		t.Errorf("--ca-bundle printed %q, want ca.crt in base64", got)
	}
	if st, err := os.Stat(filepath.Join(dir, "tls.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("tls.key: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	if _, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")); err != nil {
		t.Errorf("tls.crt and tls.key: %v", err)
	}
	if want := "wrote ca.crt, tls.crt and tls.key for winkube-webhook.winkube-system.svc to " + dir; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
}

func TestWebhookUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"certs", "--namespace", "ns"}, "--service and --namespace are required"},
		{[]string{"certs", "--service", "Web_Hook", "--namespace", "ns"}, `service "Web_Hook": a lowercase RFC 1123 label`},
		{[]string{"serve"}, "--tls-cert and --tls-key are required"},
		{[]string{"serve", "--tls-cert", "a", "--tls-key", "b", "--log-level", "loud"}, `--log-level "loud": want debug, info, warn or error`},
		{[]string{"serve", "--tls-cert", "missing.crt", "--tls-key", "missing.key"}, "reading TLS certificate: open missing.crt: no such file or directory"},
	}
	for _, tc := range tests {
		code, _, errOut := runWebhook(t.Context(), tc.args...)
		if code != ExitError || !strings.Contains(errOut, tc.err) {
			t.Errorf("webhook %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.err)
		}
	}
}

// TestWebhookServe runs `webhook serve` until its context ends, as SIGTERM
// ends it in cmd/winkube, and checks that it served HTTPS and exited 0.
func TestWebhookServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errOut := runWebhook(t.Context(), "certs", "--service", "wh", "--namespace", "ns", "--out-dir", dir, "--san", "127.0.0.1"); code != 0 {
		t.Fatal(errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut webhookLog
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"webhook", "serve", "--addr", "127.0.0.1:0", "--drain-delay", "0",
			"--tls-cert", filepath.Join(dir, "tls.crt"), "--tls-key", filepath.Join(dir, "tls.key")},
			Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	}()
	addrRE := regexp.MustCompile(`"msg":"serving admission webhook","addr":"([^"]+)"`)
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(errOut.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("no serving line in the log:\n%s", errOut.String())
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get("https://" + addr + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("/readyz: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if code := <-done; code != ExitClean {
		t.Errorf("exit %d after the context ended, want 0:\n%s", code, errOut.String())
	}
}

// webhookLog is a bytes.Buffer safe for a server goroutine and the test.
type webhookLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *webhookLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *webhookLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWebhookCertsRefusesOverwrite: a second run would replace the CA
// that the installed caBundle trusts; without --force it changes nothing
// and exits 2, with --force it rewrites the key as 0600 even where a
// 0644 key was, and a planted link is refused, its target untouched.
func TestWebhookCertsRefusesOverwrite(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "certs")
	args := []string{"certs", "--service", "wh", "-n", "ns", "--out-dir", dir}
	if code, _, errOut := runWebhook(t.Context(), args...); code != ExitClean {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	code, _, errOut := runWebhook(t.Context(), args...)
	if code != ExitError || !strings.Contains(errOut, "ca.crt already exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("second run without --force: exit %d, stderr %q; want 2 naming ca.crt and --force", code, errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); !bytes.Equal(again, ca) {
		t.Error("ca.crt was replaced without --force")
	}
	key := filepath.Join(dir, "tls.key")
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runWebhook(t.Context(), append(args, "--force")...); code != ExitClean {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if st, _ := os.Stat(key); st.Mode().Perm() != 0o600 {
		t.Errorf("tls.key mode %v after --force over a 0644 key, want 0600", st.Mode().Perm())
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); bytes.Equal(again, ca) {
		t.Error("--force did not write a new CA")
	}
	// A link planted where the key goes: neither followed nor chmodded.
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(key)
	if err := os.Symlink(target, key); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if code, _, _ := runWebhook(t.Context(), append(args, "--force")...); code == ExitClean {
		t.Error("--force wrote through a planted link")
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("the link's target became %v", st.Mode().Perm())
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Errorf("the link's target was written: %q", data)
	}
}
