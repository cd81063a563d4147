package registry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/winkube/winkube/internal/winsupport"
)

// Options configures a Resolver. The zero value asks registries over
// HTTPS, anonymously unless ~/.docker/config.json has credentials, and
// caches under the user cache directory.
type Options struct {
	ConfigFile string        // Docker config.json with credentials ("" for the default keychain)
	Insecure   []string      // registry hosts spoken to over plain HTTP
	CacheDir   string        // "" for winkube/images under the user cache dir
	TagTTL     time.Duration // how long a tag's digest is trusted (default 1h)
	Offline    bool          // answer only from the cache
	Jobs       int           // requests in flight (default 16)
	Timeout    time.Duration // per reference, retries included (default 30s)
	Backoff    time.Duration // first retry delay (default 1s; tests shorten it)
	Progress   io.Writer     // a progress line goes here when set (a TTY's stderr)
	Transport  http.RoundTripper
	// Warnings receives a warning about the cache, once (stderr).
	Warnings io.Writer
	now      func() time.Time
}

// Resolver resolves references; it implements rule.ImageLookup.
type Resolver struct {
	o      Options
	keys   authn.Keychain
	puller *remote.Puller
	cache  cache
	sem    chan struct{}
	mu     sync.Mutex
	calls  map[string]*call // by repository:tag or repository@digest
	done   atomic.Int64
	total  atomic.Int64
	// cacheWarn gives the unwritable cache's warning once.
	cacheWarn sync.Once
}

type call struct {
	ready chan struct{}
	res   *winsupport.ResolvedImage
	err   error
}

// New makes a Resolver.
func New(o Options) (*Resolver, error) {
	if o.TagTTL == 0 {
		o.TagTTL = time.Hour
	}
	if o.Jobs <= 0 {
		o.Jobs = 16
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Backoff == 0 {
		o.Backoff = time.Second
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.Transport == nil {
		t := remote.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = o.Jobs
		o.Transport = t
	}
	o.Transport = bounded{o.Transport}
	var noCache error
	if o.CacheDir == "" {
		d, err := defaultCacheDir()
		if err != nil && o.Offline {
			return nil, err // offline, the cache is all there is
		}
		o.CacheDir, noCache = d, err
	}
	keys, err := keychain(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	puller, err := newPuller(o, keys)
	if err != nil {
		return nil, err
	}
	r := &Resolver{o: o, keys: keys, puller: puller, cache: cache{o.CacheDir}, sem: make(chan struct{}, o.Jobs), calls: map[string]*call{}}
	// No cache folder at all (no HOME, no XDG_CACHE_HOME): resolve
	// without one, as with an unwritable one.
	r.cacheWrote(noCache)
	return r, nil
}

// Lookup resolves ref, once per run: later and concurrent callers share
// the first answer.
func (r *Resolver) Lookup(ref string) (*winsupport.ResolvedImage, error) {
	return r.Resolve(context.Background(), ref)
}

// Resolve is Lookup with a context.
func (r *Resolver) Resolve(ctx context.Context, ref string) (*winsupport.ResolvedImage, error) {
	parsed, err := r.parse(ref)
	if err != nil {
		return nil, &Error{Ref: ref, Kind: BadReference, Err: err}
	}
	key := parsed.Name()
	r.mu.Lock()
	c, ok := r.calls[key]
	if !ok {
		c = &call{ready: make(chan struct{})}
		r.calls[key] = c
	}
	r.mu.Unlock()
	if ok {
		<-c.ready
		return withRef(c.res, ref), c.err
	}
	r.total.Add(1)
	c.res, c.err = r.resolve(ctx, ref, parsed)
	close(c.ready)
	r.progress()
	return withRef(c.res, ref), c.err
}

// withRef returns res as written by this caller.
func withRef(res *winsupport.ResolvedImage, ref string) *winsupport.ResolvedImage {
	if res == nil || res.Ref == ref {
		return res
	}
	out := *res
	out.Ref = ref
	return &out
}

// ResolveAll resolves every reference with bounded concurrency; the maps
// hold each reference's answer or its *Error.
func (r *Resolver) ResolveAll(ctx context.Context, refs []string) (map[string]*winsupport.ResolvedImage, map[string]error) {
	refs = slices.Compact(slices.Sorted(slices.Values(refs)))
	out, errs := make(map[string]*winsupport.ResolvedImage, len(refs)), map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ref := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Resolve(ctx, ref)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[ref] = err
			} else {
				out[ref] = res
			}
		}()
	}
	wg.Wait()
	r.Done()
	return out, errs
}

func (r *Resolver) parse(ref string) (name.Reference, error) {
	p, err := name.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	if slices.Contains(r.o.Insecure, p.Context().RegistryStr()) {
		return name.ParseReference(ref, name.Insecure)
	}
	return p, nil
}

func (r *Resolver) progress() {
	if r.o.Progress == nil {
		return
	}
	n := r.done.Add(1)
	if n%16 == 0 || n == r.total.Load() {
		fmt.Fprintf(r.o.Progress, "\rresolving images: %d/%d", n, r.total.Load())
	}
}

// Done ends the progress line, if one was started.
func (r *Resolver) Done() {
	if r.o.Progress != nil && r.done.Swap(0) > 0 {
		fmt.Fprintln(r.o.Progress)
	}
}
