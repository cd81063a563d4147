package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// shutdown is what happened at SIGTERM.
type shutdown struct {
	InFlight int       // requests sent and not answered when SIGTERM was sent, the straggler included
	Sent     time.Time // when SIGTERM was sent
	Err      string    // SIGTERM could not be sent
}

// Straggler is a request whose body is half sent when SIGTERM goes out and
// finished after the drain, when the server has stopped accepting
// connections: it is in flight for the whole shutdown, whatever the
// machine's speed, and must still be answered.
type Straggler struct {
	Answered bool
	Err      string
}

// The straggler's body: a review padded with whitespace (valid JSON), so
// that the first half fills the client's write buffers and reaches the
// server before SIGTERM.
const stragglerPad = 256 << 10

// terminate starts the straggler and a burst of n ordinary requests, sends
// SIGTERM and returns; the straggler's outcome arrives on its channel once
// its answer is read.
func (l *load) terminate(ctx context.Context, n int) (*shutdown, <-chan Straggler) {
	sd := &shutdown{}
	out := make(chan Straggler, 1)
	t := l.picker.pick(0)
	uid := "straggler"
	body := append(t.body(uid), bytes.Repeat([]byte(" "), stragglerPad)...)
	half := len(body) - stragglerPad/2
	pr, pw := io.Pipe()
	go func() { out <- l.straggle(ctx, t, uid, pr) }()
	// The pipe's write returns once the client has taken the bytes; its
	// buffers are far smaller than half the padding. A failure shows in
	// the straggler's outcome.
	if _, err := pw.Write(body[:half]); err != nil {
		pw.CloseWithError(err)
	}
	l.burst(ctx, n)
	sd.InFlight = int(l.inFlight.Load()) + 1
	sd.Sent = time.Now()
	if err := l.srv.terminate(); err != nil {
		sd.Err = err.Error()
	}
	go func() {
		// Finish the body after the drain, while Shutdown waits for it.
		select {
		case <-time.After(l.cfg.DrainDelay + l.cfg.DrainDelay/2):
		case <-l.srv.exited:
		}
		pw.Write(body[half:])
		pw.Close()
	}()
	return sd, out
}

// straggle sends the straggler on a connection of its own.
func (l *load) straggle(ctx context.Context, t *template, uid string, body io.Reader) Straggler {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: l.srv.cas, ServerName: "127.0.0.1"}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/"+t.endpoint, body)
	if err != nil {
		return Straggler{Err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return Straggler{Err: err.Error()}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return Straggler{Err: err.Error()}
	case resp.StatusCode != http.StatusOK:
		return Straggler{Err: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))}
	}
	if err := t.check(uid, b); err != nil {
		return Straggler{Err: err.Error()}
	}
	return Straggler{Answered: true}
}
