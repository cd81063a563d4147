package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileRegistry answers /v2/ and hands the rest to h.
func hostileRegistry(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// endless writes at least n bytes of JSON-looking filler.
func endless(w http.ResponseWriter, n int) {
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for written := 0; written < n; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestHostileRegistries: a redirect loop, an endless manifest and an
// endless config blob each end in a typed failure, within the resolver's
// timeout, never in a hang or an unbounded read.
func TestHostileRegistries(t *testing.T) {
	t.Parallel()
	cfgDigest := "sha256:" + strings.Repeat("ab", 32)
	manifest := fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":%q,"size":1000},"layers":[]}`, cfgDigest)
	sum := sha256.Sum256([]byte(manifest))
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want Kind
	}{
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		}, TooManyRedirects},
		{"endless manifest", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			endless(w, 200<<20)
		}, TooLarge},
		{"endless config blob", func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/manifests/") {
				w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
				w.Header().Set("Docker-Content-Digest", "sha256:"+hex.EncodeToString(sum[:]))
				fmt.Fprint(w, manifest)
				return
			}
			endless(w, 200<<20)
		}, TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := hostileRegistry(t, tc.h)
			r, err := New(Options{CacheDir: t.TempDir(), Insecure: []string{host}, Timeout: 20 * time.Second, Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Lookup(host + "/shop/app:1.0")
			if got := kindOf(err); got != tc.want {
				t.Errorf("%v (kind %q), want %q", err, got, tc.want)
			}
			var e *Error
			if errors.As(err, &e) && e.ResolveHint() == "" {
				t.Error("no hint")
			}
		})
	}
}

// TestUnwritableCache: the cache saves requests; when it cannot be
// written the image still resolves, with one warning for the whole run.
func TestUnwritableCache(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	r := newResolver(t, s, Options{CacheDir: filepath.Join(file, "cache"), Warnings: &warnings})
	for _, name := range []string{"multi", "ltsc2022"} {
		if _, err := r.Lookup(refs[name]); err != nil {
			t.Errorf("%s with an unwritable cache: %v", name, err)
		}
	}
	if got := strings.Count(warnings.String(), "warning:"); got != 1 {
		t.Errorf("%d warnings, want 1:\n%s", got, warnings.String())
	}
}

// TestNoCacheFolder: without HOME or XDG_CACHE_HOME there is no cache
// folder; images still resolve, with one warning (offline, it is an error:
// the cache is all there is).
func TestNoCacheFolder(t *testing.T) {
	s, refs := start(t)
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	var warnings bytes.Buffer
	r, err := New(Options{Insecure: []string{s.Host}, Backoff: time.Millisecond, Warnings: &warnings})
	if err != nil {
		t.Fatalf("New without a cache folder: %v", err)
	}
	if _, err := r.Lookup(refs["multi"]); err != nil {
		t.Errorf("resolving without a cache folder: %v", err)
	}
	if got := strings.Count(warnings.String(), "warning:"); got != 1 {
		t.Errorf("%d warnings, want 1:\n%s", got, warnings.String())
	}
	if _, err := New(Options{Offline: true}); err == nil {
		t.Error("--offline without a cache folder: no error")
	}
}
