package webhook

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"

	"github.com/winkube/winkube/internal/rule"

	"github.com/winkube/winkube/internal/manifest"
)

// configSource loads the config file and notices when its content changes.
type configSource struct {
	path  string // "" = defaults, never reloaded
	known []*rule.Rule
	extra []*rule.Rule

	mu      sync.Mutex
	loaded  [32]byte
	lastBad [32]byte
}

// load reads and compiles the config, or the defaults without a file.
func (c *configSource) load() (*policy, error) {
	if c.path == "" {
		return compile("defaults", defaultConfig(), c.extra)
	}
	data, err := manifest.ReadFile(c.path, manifest.MaxConfigSize)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compile(data)
}

func (c *configSource) compile(data []byte) (*policy, error) {
	sum := sha256.Sum256(data)
	cfg, err := decodeConfig(c.path, data, c.known)
	if err == nil {
		var p *policy
		if p, err = compile(c.path, cfg, c.extra); err == nil {
			c.loaded = sum
			return p, nil
		}
	}
	c.lastBad = sum
	return nil, err
}

// changed returns the new policy when the file's content changed, nil when
// it did not (or changed to the version that failed last time).
func (c *configSource) changed() (*policy, error) {
	if c.path == "" {
		return nil, nil
	}
	data, err := manifest.ReadFile(c.path, manifest.MaxConfigSize)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sum := sha256.Sum256(data); sum == c.loaded || sum == c.lastBad {
		return nil, nil
	}
	return c.compile(data)
}

// reload reads the config and certificate files now, whether or not they
// changed (SIGHUP); a bad version is logged and the previous one kept.
func (s *server) reload() error {
	var errs []error
	if p, err := s.config.load(); err != nil {
		s.metrics.reloads.WithLabelValues("config", "failure").Inc()
		s.log.Error("webhook config not reloaded; keeping the previous one", "file", s.config.path, "error", err.Error())
		errs = append(errs, err)
	} else {
		s.policy.Store(p)
		s.metrics.reloads.WithLabelValues("config", "success").Inc()
		s.log.Info("webhook config reloaded", "file", s.config.path, "mode", string(p.mode), "trigger", "SIGHUP")
	}
	if s.cert != nil {
		if _, err := s.cert.reload(); err != nil {
			s.metrics.reloads.WithLabelValues("certificate", "failure").Inc()
			s.log.Error("TLS certificate not reloaded; keeping the previous one", "error", err.Error())
			errs = append(errs, err)
		} else {
			s.metrics.reloads.WithLabelValues("certificate", "success").Inc()
			s.log.Info("TLS certificate reloaded", append(s.cert.describe(), "trigger", "SIGHUP")...)
		}
	}
	return errors.Join(errs...)
}

// watch polls the config and certificate files until ctx is done. Files
// are compared by content: a rotation within one second, or one that keeps
// the size, is still seen, and a Secret volume's symlink swap is too.
func (s *server) watch(ctx context.Context) {
	t := time.NewTicker(s.opts.ReloadInterval)
	defer t.Stop()
	var lastErr [2]string // log a lasting read error once
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p, err := s.config.changed()
		switch {
		case err != nil && err.Error() != lastErr[0]:
			s.metrics.reloads.WithLabelValues("config", "failure").Inc()
			s.log.Error("webhook config not reloaded; keeping the previous one", "file", s.config.path, "error", err.Error())
		case p != nil:
			s.policy.Store(p)
			s.metrics.reloads.WithLabelValues("config", "success").Inc()
			s.log.Info("webhook config reloaded", "file", s.config.path, "mode", string(p.mode))
		}
		lastErr[0] = errString(err)
		if s.cert == nil {
			continue
		}
		changed, err := s.cert.reload()
		switch {
		case err != nil && err.Error() != lastErr[1]:
			s.metrics.reloads.WithLabelValues("certificate", "failure").Inc()
			s.log.Error("TLS certificate not reloaded; keeping the previous one", "error", err.Error())
		case changed:
			s.metrics.reloads.WithLabelValues("certificate", "success").Inc()
			s.log.Info("TLS certificate reloaded", s.cert.describe()...)
		}
		lastErr[1] = errString(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
