package webhook

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxRequestBytes = 3 << 20 // the API server's own request body limit
	DefaultReadTimeout     = 10 * time.Second
	DefaultWriteTimeout    = 10 * time.Second
	DefaultShutdownTimeout = 25 * time.Second
	DefaultDrainDelay      = 2 * time.Second
	DefaultReloadInterval  = time.Second
)

type server struct {
	opts     Options
	log      *slog.Logger
	maxBytes int64
	gate     *bodyGate // bounds the bodies decoded at once
	metrics  *metrics
	handler  http.Handler

	policy   atomic.Pointer[policy]
	config   configSource
	cert     *certSource // nil when no certificate files are given
	bound    atomic.Pointer[net.Addr]
	draining atomic.Bool
	running  atomic.Bool
}

func newServer(opts Options) (*server, error) {
	if (opts.CertFile == "") != (opts.KeyFile == "") {
		return nil, errors.New("the TLS certificate and key go together: give both files or neither")
	}
	defaults(&opts)
	s := &server{opts: opts, log: opts.Logger, maxBytes: opts.MaxRequestBytes, gate: newBodyGate(opts.MaxRequestBytes), metrics: newMetrics()}
	s.config = configSource{path: opts.ConfigPath, known: opts.Known, extra: opts.extraRules}
	p, err := s.config.load()
	if err != nil {
		return nil, err
	}
	s.policy.Store(p)
	if opts.CertFile != "" {
		s.cert = &certSource{certFile: opts.CertFile, keyFile: opts.KeyFile}
		if _, err := s.cert.reload(); err != nil {
			return nil, err
		}
	}
	s.handler = s.routes()
	return s, nil
}

func defaults(o *Options) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	set := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	set(&o.ReadTimeout, DefaultReadTimeout)
	set(&o.WriteTimeout, DefaultWriteTimeout)
	set(&o.ShutdownTimeout, DefaultShutdownTimeout)
	set(&o.DrainDelay, DefaultDrainDelay)
	set(&o.ReloadInterval, DefaultReloadInterval)
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/validate", s.admissionHandler(validateEndpoint))
	mux.Handle("/mutate", s.admissionHandler(mutateEndpoint))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("/readyz", s.readyz)
	mux.Handle("/metrics", s.metrics.handler())
	return s.recoverer(s.drainer(mux))
}

// readyz fails while draining, so that the pod leaves the Service's
// endpoints; the config and certificate are loaded by the time it exists.
func (s *server) readyz(w http.ResponseWriter, _ *http.Request) {
	switch {
	case s.draining.Load():
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	case s.policy.Load() == nil || (s.cert != nil && s.cert.cur.Load() == nil):
		http.Error(w, "config or certificate not loaded", http.StatusServiceUnavailable)
	default:
		io.WriteString(w, "ok\n")
	}
}

// drainer closes each connection after its response once shutdown began:
// clients then open new connections, to another replica, instead of
// sending on one that is about to close.
func (s *server) drainer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// recoverer answers 500 for a panic outside admission (which recovers on
// its own, with the request UID).
func (s *server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic serving request", "path", r.URL.Path, "panic", fmt.Sprint(v))
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func (s *server) addr() net.Addr {
	if a := s.bound.Load(); a != nil {
		return *a
	}
	return nil
}
