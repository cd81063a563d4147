package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Config describes a run. Binary and WorkDir are required.
type Config struct {
	Binary      string        // the winkube binary, run as `winkube webhook serve`
	WorkDir     string        // where the certificates are written
	Rate        int           // requests per second; default 1000
	Requests    int           // measured requests; default 10 seconds' worth
	Warmup      int           // requests sent first and not measured; default half a second's worth
	Connections int           // keep-alive client connections; default 8
	Rotations   int           // certificate rotations during the measured requests; default 1
	Timeout     time.Duration // per request; default 10s
	// MaxDuration bounds the whole run; default twice the schedule plus a
	// minute. The server is killed when it is reached.
	MaxDuration time.Duration
	// DrainDelay and ReloadInterval are the server's flags; defaults 1s.
	DrainDelay     time.Duration
	ReloadInterval time.Duration
	ServerLog      io.Writer // the server's log lines; nil drops them
}

func (c *Config) defaults() error {
	if c.Binary == "" || c.WorkDir == "" {
		return errors.New("loadgen: Binary and WorkDir are required")
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Rate, 1000)
	def(&c.Requests, 10*c.Rate)
	def(&c.Warmup, max(c.Rate/2, 1))
	def(&c.Connections, 8)
	if c.Rotations < 0 {
		c.Rotations = 0
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur(&c.Timeout, 10*time.Second)
	defDur(&c.DrainDelay, time.Second)
	defDur(&c.ReloadInterval, time.Second)
	schedule := time.Duration(c.Requests+c.Warmup) * time.Second / time.Duration(c.Rate)
	defDur(&c.MaxDuration, 2*schedule+time.Minute)
	return nil
}

// Run starts the server, sends the warm-up and the measured requests at
// the fixed rate while rotating the certificate, sends SIGTERM with
// requests in flight, and waits for every answer and for the server to
// exit. It returns the figures; err is for a run that could not be made,
// failed requests are counted in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxDuration)
	defer cancel()
	srv, err := startServer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer srv.kill()
	base := "https://" + srv.addr
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.cas, ServerName: "127.0.0.1"},
		MaxConnsPerHost: cfg.Connections, MaxIdleConnsPerHost: cfg.Connections, IdleConnTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: cfg.Timeout}
	ts, err := mix()
	if err != nil {
		return nil, err
	}
	l := &load{cfg: cfg, client: client, base: base, picker: newPicker(ts), srv: srv}

	l.send(ctx, cfg.Warmup, nil)
	l.wait()
	// /metrics on a connection of its own: the load's may all be busy.
	scraper := &http.Client{Timeout: cfg.Timeout, Transport: &http.Transport{TLSClientConfig: transport.TLSClientConfig, DisableKeepAlives: true}}
	before, err := scrape(scraper, base)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	res := &Result{Config: cfg, Rotations: make([]rotation, cfg.Rotations)}
	var rotations sync.WaitGroup
	next := 0
	started := time.Now()
	l.latencies = make([]time.Duration, cfg.Requests)
	l.send(ctx, cfg.Requests, func(i int) {
		// Rotations are spread evenly over the measured requests.
		if next < cfg.Rotations && i == (next+1)*cfg.Requests/(cfg.Rotations+1) {
			r := &res.Rotations[next]
			next++
			rotations.Go(func() { l.rotate(ctx, r) })
		}
	})
	res.Elapsed = time.Since(started)
	rotations.Wait()
	l.wait()
	after, err := scrape(scraper, base)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	// The measured requests are in; a last burst is in flight at SIGTERM.
	sd, straggler := l.terminate(ctx, 2*cfg.Connections)
	l.wait()
	res.Straggler = <-straggler
	select {
	case <-srv.exited:
	case <-ctx.Done():
		return nil, fmt.Errorf("the server did not exit after SIGTERM: %w\n%s", ctx.Err(), srv.logTail)
	}
	res.fill(l, srv, sd, after.minus(before))
	res.Throughput = float64(cfg.Requests) / time.Unix(0, l.lastDone.Load()).Sub(started).Seconds()
	return res, nil
}
