package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// load sends requests and keeps their outcomes.
type load struct {
	cfg    Config
	client *http.Client
	base   string
	picker *picker
	srv    *server

	wg        sync.WaitGroup
	seq       atomic.Int64 // request numbers, for UIDs
	inFlight  atomic.Int64
	latencies []time.Duration // of the measured requests, by index
	lastDone  atomic.Int64    // when the last measured answer came, in Unix nanoseconds

	mu       sync.Mutex
	sent     int
	failures int
	samples  []string // the first failures
	outcomes map[string]int
}

// send schedules n requests at the configured rate, each at its own
// instant whatever happened to the ones before (an open loop: a slow
// answer does not delay the next request), and returns once all are sent.
// Latency runs from a request's scheduled instant to its answer, so time
// spent waiting for a free connection counts. before(i) runs ahead of the
// i-th request.
func (l *load) send(ctx context.Context, n int, before func(i int)) {
	interval := time.Second / time.Duration(l.cfg.Rate)
	measure := l.latencies != nil
	start := time.Now()
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * interval)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		if ctx.Err() != nil {
			l.fail(fmt.Sprintf("run stopped: %v", ctx.Err()))
			return
		}
		if before != nil {
			before(i)
		}
		l.wg.Add(1)
		l.inFlight.Add(1)
		go func(i int, at time.Time) {
			defer l.wg.Done()
			defer l.inFlight.Add(-1)
			err := l.one(ctx)
			if measure {
				now := time.Now()
				l.latencies[i] = now.Sub(at)
				storeMax(&l.lastDone, now.UnixNano())
			}
			if err != nil {
				l.fail(err.Error())
			}
		}(i, at)
	}
}

// storeMax raises a to v unless it is already higher.
func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// burst sends n requests at once, unmeasured.
func (l *load) burst(ctx context.Context, n int) {
	for range n {
		l.wg.Add(1)
		l.inFlight.Add(1)
		go func() {
			defer l.wg.Done()
			defer l.inFlight.Add(-1)
			if err := l.one(ctx); err != nil {
				l.fail(err.Error())
			}
		}()
	}
}

func (l *load) wait() { l.wg.Wait() }

// one sends one request of the mix and checks its answer.
func (l *load) one(ctx context.Context) error {
	n := l.seq.Add(1)
	t := l.picker.pick(int(n))
	uid := "load-" + strconv.FormatInt(n, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/"+t.endpoint, bytes.NewReader(t.body(uid)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", t.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", t.name, resp.StatusCode, body)
	}
	if err := t.check(uid, body); err != nil {
		return err
	}
	l.mu.Lock()
	l.sent++
	if l.outcomes == nil {
		l.outcomes = map[string]int{}
	}
	l.outcomes[t.want.String()]++
	l.mu.Unlock()
	return nil
}

func (l *load) fail(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	l.failures++
	if len(l.samples) < 10 {
		l.samples = append(l.samples, msg)
	}
}

// rotation is one certificate rotation and when new connections saw it.
type rotation struct {
	Serial   string
	Observed time.Duration // from the files' rewrite to a new connection getting the certificate; 0 if never
	Err      string
}

// rotate rewrites the certificate files and waits until a new connection
// is served the new certificate.
func (l *load) rotate(ctx context.Context, r *rotation) {
	if err := l.srv.rotate(); err != nil {
		r.Err = err.Error()
		return
	}
	r.Serial = l.srv.serial
	written := time.Now()
	for ctx.Err() == nil && time.Since(written) < 10*l.cfg.ReloadInterval+10*time.Second {
		if got, err := l.srv.served(); err == nil && got == r.Serial {
			r.Observed = time.Since(written)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Err = "the new certificate was never served"
}
