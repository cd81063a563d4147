package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

func (s *server) run(ctx context.Context) error {
	if s.cert == nil {
		return errors.New("serving needs a TLS certificate and key (the API server calls webhooks over HTTPS only)")
	}
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("the server is already running")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return err
	}
	addr := ln.Addr()
	s.bound.Store(&addr)
	srv := &http.Server{
		Handler:           s.handler,
		TLSConfig:         &tls.Config{GetCertificate: s.cert.get, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: s.opts.ReadTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	go s.watch(watchCtx)

	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	s.log.Info("serving admission webhook", append([]any{"addr", addr.String(), "config", s.policy.Load().source,
		"mode", string(s.policy.Load().mode)}, s.cert.describe()...)...)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	return s.shutdown(srv, served)
}

// shutdown drains, then stops accepting connections and waits for the
// requests in flight; it returns nil when they all finished in time.
func (s *server) shutdown(srv *http.Server, served chan error) error {
	s.draining.Store(true)
	s.log.Info("shutting down: draining", "drainDelay", max(s.opts.DrainDelay, 0).String())
	var drained <-chan time.Time
	if s.opts.DrainDelay > 0 {
		drained = time.After(s.opts.DrainDelay)
	}
	if s.opts.drainUntil != nil || drained != nil {
		select {
		case <-drained:
		case <-s.opts.drainUntil:
		case err := <-served:
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(ctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		s.log.Error("shutdown did not complete", "error", err.Error())
		return err
	}
	s.log.Info("shut down: every request in flight was answered")
	return nil
}
