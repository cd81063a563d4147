package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/registry/registrytest"
	"github.com/winkube/winkube/internal/winsupport"
)

func start(t *testing.T) (*registrytest.Server, map[string]string) {
	t.Helper()
	s, err := registrytest.Start()
	if err != nil {
		t.Fatalf("starting the in-process registry: %v", err)
	}
	t.Cleanup(s.Close)
	refs, err := s.Fixtures()
	if err != nil {
		t.Fatalf("pushing fixtures: %v", err)
	}
	return s, refs
}

func newResolver(t *testing.T, s *registrytest.Server, o Options) *Resolver {
	t.Helper()
	if o.CacheDir == "" {
		o.CacheDir = t.TempDir()
	}
	o.Insecure = append(o.Insecure, s.Host)
	if o.Backoff == 0 {
		o.Backoff = time.Millisecond
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func entries(r *winsupport.ResolvedImage) []string {
	var out []string
	for _, p := range r.Platforms {
		s := p.String()
		if len(p.OSFeatures) > 0 {
			s += " +" + strings.Join(p.OSFeatures, "+")
		}
		out = append(out, s)
	}
	return out
}

func TestResolvePlatforms(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	cfg, err := s.DockerConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := newResolver(t, s, Options{ConfigFile: cfg})
	for _, tt := range []struct {
		key   string
		index bool
		want  []string
	}{
		{"ltsc2019", false, []string{"windows/amd64 10.0.17763.6414"}},
		{"orders", false, []string{"windows/amd64 10.0.20348.2461"}},
		{"multi", true, []string{"windows/amd64 10.0.17763.6414", "windows/amd64 10.0.20348.2966", "windows/amd64 10.0.26100.2605 +win32k"}},
		{"web", true, []string{"linux/amd64", "linux/arm64", "windows/amd64 10.0.20348.2966"}},
		{"busybox", false, []string{"linux/amd64"}},
		{"private", true, []string{"windows/amd64 10.0.20348.2966", "windows/amd64 10.0.26100.2605"}},
	} {
		res, err := r.Lookup(refs[tt.key])
		if err != nil {
			t.Errorf("%s: %v", tt.key, err)
			continue
		}
		if res.Index != tt.index || !strings.HasPrefix(res.Digest, "sha256:") || res.Ref != refs[tt.key] {
			t.Errorf("%s: got index %v digest %q ref %q", tt.key, res.Index, res.Digest, res.Ref)
		}
		if diff := cmp.Diff(tt.want, entries(res)); diff != "" {
			t.Errorf("%s platforms (-want +got):\n%s", tt.key, diff)
		}
	}
}

// TestCompatibilityFromRegistry: which entry each Windows build pulls, as
// containerd picks it, for every fixture.
func TestCompatibilityFromRegistry(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	r := newResolver(t, s, Options{})
	pick := func(key, build string, iso winsupport.Isolation) string {
		res, err := r.Lookup(refs[key])
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		i, ok := winsupport.Host{OS: "windows", Build: build}.Pick(res.Platforms, iso)
		if !ok {
			return "no match"
		}
		return res.Platforms[i].OSVersion
	}
	for _, tt := range []struct {
		key, build string
		iso        winsupport.Isolation
		want       string
	}{
		{"ltsc2022", "10.0.26100", winsupport.ProcessIsolation, "10.0.20348.2966"},
		{"ltsc2022", "10.0.20348", winsupport.ProcessIsolation, "10.0.20348.2966"},
		{"ltsc2022", "10.0.17763", winsupport.ProcessIsolation, "no match"},
		{"ltsc2019", "10.0.20348", winsupport.ProcessIsolation, "no match"},
		{"ltsc2019", "10.0.20348", winsupport.HyperVIsolation, "10.0.17763.6414"},
		{"ltsc2025", "10.0.20348", winsupport.ProcessIsolation, "no match"},
		{"ltsc2025", "10.0.20348", winsupport.HyperVIsolation, "no match"},
		{"multi", "10.0.17763", winsupport.ProcessIsolation, "10.0.17763.6414"},
		{"multi", "10.0.20348", winsupport.ProcessIsolation, "10.0.20348.2966"},
		{"multi", "10.0.26100", winsupport.ProcessIsolation, "10.0.26100.2605"}, // win32k ignored, greatest wins
		{"orders", "10.0.26100", winsupport.ProcessIsolation, "10.0.20348.2461"},
		{"web", "10.0.17763", winsupport.ProcessIsolation, "no match"},
		{"busybox", "10.0.20348", winsupport.ProcessIsolation, "no match"},
	} {
		if got := pick(tt.key, tt.build, tt.iso); got != tt.want {
			t.Errorf("%s on %s (%s): pulled %q, want %q", tt.key, tt.build, tt.iso, got, tt.want)
		}
	}
}

func TestOneRequestPerTag(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	r := newResolver(t, s, Options{})
	before := s.Requests.Load()
	list := make([]string, 50)
	for i := range list {
		list[i] = refs["web"]
	}
	got, errs := r.ResolveAll(t.Context(), list)
	if len(errs) > 0 || len(got) != 1 {
		t.Fatalf("ResolveAll: %d results, errors %v", len(got), errs)
	}
	for range 10 {
		if _, err := r.Lookup(refs["web"]); err != nil {
			t.Fatal(err)
		}
	}
	// An index is one manifest GET (the HEAD-less Get): one request.
	if n := s.Requests.Load() - before; n != 1 {
		t.Errorf("%d registry requests for one repository:tag, want 1", n)
	}
}

func TestCacheAndOffline(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	dir := t.TempDir()
	if _, err := newResolver(t, s, Options{CacheDir: dir}).Lookup(refs["orders"]); err != nil {
		t.Fatal(err)
	}
	s.Close() // the registry is gone: only the cache can answer
	off := newResolver(t, s, Options{CacheDir: dir, Offline: true})
	res, err := off.Lookup(refs["orders"])
	if err != nil {
		t.Fatalf("offline: %v", err)
	}
	if !res.Cached || cmp.Diff([]string{"windows/amd64 10.0.20348.2461"}, entries(res)) != "" {
		t.Errorf("offline answer = %+v", res)
	}
	if _, err := off.Lookup(refs["busybox"]); kindOf(err) != NotCached {
		t.Errorf("offline, never resolved: %v, want %q", err, NotCached)
	}
}

func TestMovingTag(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	ref := s.Host + "/shop/moving:stable"
	first, err := s.PushImage("shop/moving:stable", registrytest.Windows("10.0.20348.1"), 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lookup := func(ttl time.Duration) string {
		res, err := newResolver(t, s, Options{CacheDir: dir, TagTTL: ttl}).Lookup(ref)
		if err != nil {
			t.Fatal(err)
		}
		return res.Digest
	}
	if got := lookup(time.Hour); got != first {
		t.Fatalf("first resolve = %s, want %s", got, first)
	}
	second, err := s.PushImage("shop/moving:stable", registrytest.Windows("10.0.26100.1"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := lookup(time.Hour); got != first {
		t.Errorf("within the TTL the cached digest answers: got %s, want %s", got, first)
	}
	if got := lookup(time.Nanosecond); got != second {
		t.Errorf("after the TTL the tag is read again: got %s, want %s", got, second)
	}
}

// TestTornCacheFile: a cache file that does not match its digest (a crash
// mid-write) is a miss, never a wrong answer.
func TestTornCacheFile(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	dir := t.TempDir()
	res, err := newResolver(t, s, Options{CacheDir: dir}).Lookup(refs["web"])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manifests", digestFile(res.Digest))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newResolver(t, s, Options{CacheDir: dir, Offline: true}).Lookup(refs["web"]); kindOf(err) != NotCached {
		t.Errorf("offline with a torn manifest: %v, want %q", err, NotCached)
	}
	again, err := newResolver(t, s, Options{CacheDir: dir}).Lookup(refs["web"])
	if err != nil || again.Cached || again.Digest != res.Digest {
		t.Errorf("online with a torn manifest: %+v, %v; want it fetched again", again, err)
	}
}
