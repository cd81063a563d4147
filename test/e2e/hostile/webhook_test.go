package hostile

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWebhookServe: the served webhook, with clients that stall in the
// headers, stall in a body claiming the largest size, and send malformed
// and over-size reviews, still answers a large valid review at once, cuts
// the stalled connections at its read timeout, and stops on SIGTERM
// within its budget.
func TestWebhookServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := winkube(t, "webhook", "certs", "--service", "wh", "-n", "ns", "--san", "127.0.0.1", "--out-dir", dir); r.code != 0 {
		t.Fatalf("webhook certs: exit %d: %s", r.code, r.stderr)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(t.Context(), timeBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "webhook", "serve", "--addr", addr, "--tls-cert", filepath.Join(dir, "tls.crt"),
		"--tls-key", filepath.Join(dir, "tls.key"), "--read-timeout", "3s", "--drain-delay", "0", "--log-level", "warn")
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tlsConf := &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConf}}
	post := func(body []byte) (int, string) {
		resp, err := client.Post("https://"+addr+"/validate", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := client.Get("https://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook serve never became ready:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	stalled := func(head string) net.Conn {
		c, err := tls.Dial("tcp", addr, tlsConf)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, head)
		return c
	}
	var slow []net.Conn
	for range 8 {
		slow = append(slow, stalled("POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3145728\r\n\r\n{"))
	}
	slow = append(slow, stalled("POST /validate HTTP/1.1\r\nHost: x\r\n"))

	big := map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": map[string]any{
		"uid": "u1", "kind": map[string]string{"group": "", "version": "v1", "kind": "Pod"},
		"resource": map[string]string{"group": "", "version": "v1", "resource": "pods"}, "operation": "CREATE", "namespace": "default", "name": "big",
		"object": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "big", "annotations": map[string]string{"a": strings.Repeat("x", 400<<10)}},
			"spec": map[string]any{"containers": []any{map[string]string{"name": "c", "image": "nginx"}}}}}}
	body, _ := json.Marshal(big)
	if code, resp := post(body); code != http.StatusOK || !strings.Contains(resp, `"uid":"u1"`) {
		t.Errorf("a 400 KiB review behind 8 slow senders: HTTP %d: %.300s", code, resp)
	}
	for _, tc := range []struct {
		name string
		body []byte
		code int
	}{
		{"malformed", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":`), http.StatusBadRequest},
		{"deeply nested", []byte(`{"request":` + strings.Repeat("[", 1<<20)), http.StatusBadRequest},
		{"over the size limit", bytes.Repeat([]byte(" "), 4<<20), http.StatusRequestEntityTooLarge},
	} {
		if code, resp := post(tc.body); code != tc.code {
			t.Errorf("%s review: HTTP %d, want %d: %.300s", tc.name, code, tc.code, resp)
		}
	}
	for i, c := range slow {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("slow connection %d was not cut at the read timeout", i)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("webhook serve did not stop on SIGTERM within %s", timeBudget)
	}
	if err != nil {
		t.Errorf("webhook serve after SIGTERM: %v\n%s", err, tail(logs.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.Logf("webhook serve: peak %d MiB", ru.Maxrss>>10)
		if ru.Maxrss*1024 > memoryBudget {
			t.Errorf("webhook serve: peak memory %d MiB, budget %d MiB", ru.Maxrss>>10, memoryBudget>>20)
		}
	}
	if strings.Contains(logs.String(), "panic") {
		t.Errorf("the webhook logged a panic:\n%s", tail(logs.String()))
	}
}
