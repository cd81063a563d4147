package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// slowSender opens a TLS connection, sends the headers of a POST that
// claims a body of length bytes and one byte of it, and stalls.
func (f *fixture) slowSender(length int) *tls.Conn {
	f.t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(f.caPEM)
	c, err := tls.Dial("tcp", f.srv.Addr().String(), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", length)
	return c
}

// TestSlowSendersDoNotHoldTheGate: clients that claim the largest body
// and send it slowly once took the whole decoding gate, so a large review
// waited until their read timeout, past the API server's webhook timeout
// (and failurePolicy: Ignore then admitted it unchecked). Now the body is
// read before the gate: the review is answered while they still stall.
func TestSlowSendersDoNotHoldTheGate(t *testing.T) {
	f := start(t, "", func(o *Options) { o.ReadTimeout = 10 * time.Minute })
	for range 8 { // twice what the gate holds (4 bodies of the limit)
		f.slowSender(DefaultMaxRequestBytes)
	}
	time.Sleep(200 * time.Millisecond) // let the slow requests reach the handler
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  annotations:\n    a: " + strings.Repeat("x", 400<<10) +
		"\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.admit("validate", review(t, pod, ""))
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // the fixture's client gives up after 30s
		t.Fatal("a large review waited behind slow senders")
	}
}

// TestReadTimeoutEndsSlowSenders: a client that stops sending mid-body
// (or mid-headers) is cut off at the read timeout.
func TestReadTimeoutEndsSlowSenders(t *testing.T) {
	f := start(t, "", func(o *Options) { o.ReadTimeout = 500 * time.Millisecond })
	body := f.slowSender(1000)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(f.caPEM)
	header, err := tls.Dial("tcp", f.srv.Addr().String(), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer header.Close()
	io.WriteString(header, "POST /validate HTTP/1.1\r\nHost: x\r\n")
	for name, c := range map[string]net.Conn{"mid-body": body, "mid-headers": header} {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		start := time.Now()
		_, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: the server kept the connection open for %s", name, time.Since(start))
		}
	}
}
