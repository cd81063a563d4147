package registry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return "not an *Error: " + Kind(errFmt(err))
}

func errFmt(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestFailures(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	r := newResolver(t, s, Options{}) // anonymous
	for _, tt := range []struct {
		ref  string
		want Kind
	}{
		{refs["private"], Unauthorized},
		{s.Host + "/shop/orders:9.9.9", NotFound},
		{s.Host + "/shop/nothing:1.0", NotFound},
		{refs["chart"], NotAnImage},
		{"UPPER/case:bad", BadReference},
	} {
		_, err := r.Lookup(tt.ref)
		if got := kindOf(err); got != tt.want {
			t.Errorf("%s: %v (kind %q), want kind %q", tt.ref, err, got, tt.want)
		}
		var e *Error
		if errors.As(err, &e) && e.ResolveHint() == "" {
			t.Errorf("%s: no hint", tt.ref)
		}
	}
	_, err := r.Lookup(refs["private"])
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.ResolveHint(), "docker login "+s.Host) {
		t.Errorf("unauthorized hint = %v, want docker login %s", err, s.Host)
	}
}

func TestBrokenRegistries(t *testing.T) {
	t.Parallel()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	var calls500 atomic.Int64
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls500.Add(1)
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	t.Cleanup(fail.Close)
	var calls429 atomic.Int64
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls429.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"errors":[{"code":"TOOMANYREQUESTS","message":"You have reached your pull rate limit."}]}`))
	}))
	t.Cleanup(limited.Close)
	for _, tt := range []struct {
		srv  *httptest.Server
		want Kind
	}{{hang, Timeout}, {fail, Unavailable}, {limited, RateLimited}} {
		host := strings.TrimPrefix(tt.srv.URL, "http://")
		r, err := New(Options{CacheDir: t.TempDir(), Insecure: []string{host}, Timeout: 300 * time.Millisecond, Backoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a backstop: the resolver's own timeout must fire first
		_, err = r.Resolve(ctx, host+"/shop/app:1.0")
		cancel()
		if got := kindOf(err); got != tt.want {
			t.Errorf("%s: %v (kind %q), want %q", tt.srv.URL, err, got, tt.want)
		}
	}
	if calls429.Load() < 2 {
		t.Errorf("a registry answering 429 was asked %d times, want retries", calls429.Load())
	}
	if calls500.Load() < 2 {
		t.Errorf("a registry answering 500 was asked %d times, want retries", calls500.Load())
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: the connection is refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	r, err := New(Options{CacheDir: t.TempDir(), Insecure: []string{host}, Timeout: 5 * time.Second, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Lookup(host + "/shop/app:1.0")
	if got := kindOf(err); got != Unreachable {
		t.Errorf("%v (kind %q), want %q", err, got, Unreachable)
	}
}
