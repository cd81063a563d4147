package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/winkube/winkube/internal/winsupport"
)

// resolve answers one reference from the cache or the registry.
func (r *Resolver) resolve(ctx context.Context, ref string, p name.Reference) (*winsupport.ResolvedImage, error) {
	host := p.Context().RegistryStr()
	digest, fresh := r.cachedDigest(p)
	if digest != "" && (fresh || r.o.Offline) {
		if res, err := r.fromCache(ref, digest); err == nil {
			return res, nil
		}
	}
	if r.o.Offline {
		return nil, &Error{Ref: ref, Kind: NotCached, Host: host, Err: fmt.Errorf("%s was never resolved (--offline)", p.Name())}
	}
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-ctx.Done():
		return nil, classify(ref, host, ctx.Err())
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	res, err := r.fetch(ctx, ref, p)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s: %w", r.o.Timeout, err)
		}
		return nil, classify(ref, host, err)
	}
	return res, nil
}

// cachedDigest is the digest p names: its own, or its tag's cached one
// (fresh when younger than the TTL).
func (r *Resolver) cachedDigest(p name.Reference) (string, bool) {
	if d, ok := p.(name.Digest); ok {
		return d.DigestStr(), true
	}
	e, ok := r.cache.tag(p.Name())
	if !ok {
		return "", false
	}
	return e.Digest, r.o.now().Sub(e.Fetched) < r.o.TagTTL
}

func (r *Resolver) remoteOptions(ctx context.Context) []remote.Option {
	return []remote.Option{remote.WithContext(ctx), remote.Reuse(r.puller)}
}

// newPuller shares authenticated transports between the references of a
// repository (one ping and one token per repository, not per tag).
func newPuller(o Options, keys authn.Keychain) (*remote.Puller, error) {
	return remote.NewPuller(
		remote.WithAuthFromKeychain(keys),
		remote.WithTransport(o.Transport),
		remote.WithRetryStatusCodes(http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout),
		remote.WithRetryBackoff(remote.Backoff{Duration: o.Backoff, Factor: 2, Jitter: 0.1, Steps: 3}),
	)
}

// fetch asks the registry: the manifest or index the reference names,
// and for a single-platform image its config blob.
func (r *Resolver) fetch(ctx context.Context, ref string, p name.Reference) (*winsupport.ResolvedImage, error) {
	opts := r.remoteOptions(ctx)
	desc, err := remote.Get(p, opts...)
	if err != nil {
		return nil, err
	}
	digest := desc.Digest.String()
	r.cacheWrote(r.cache.putManifest(digest, string(desc.MediaType), desc.Manifest))
	var cfg []byte
	if !desc.MediaType.IsIndex() {
		m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
		if err != nil || !isImage(desc.MediaType, m) {
			return nil, notImage(ref, p, desc.MediaType, m)
		}
		var ok bool
		if cfg, ok = r.cache.config(m.Config.Digest.String()); !ok {
			l, err := remote.Layer(p.Context().Digest(m.Config.Digest.String()), opts...)
			if err != nil {
				return nil, err
			}
			if cfg, err = readLayer(l); err != nil {
				return nil, err
			}
			r.cacheWrote(r.cache.putConfig(m.Config.Digest.String(), cfg))
		}
	}
	res, err := platforms(ref, digest, string(desc.MediaType), desc.Manifest, cfg)
	if err != nil {
		return nil, &Error{Ref: ref, Kind: NotAnImage, Host: p.Context().RegistryStr(), Err: err}
	}
	if _, isTag := p.(name.Tag); isTag {
		r.cacheWrote(r.cache.putTag(p.Name(), digest, r.o.now()))
	}
	return res, nil
}

func readLayer(l v1.Layer) ([]byte, error) {
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readAtMost(rc, MaxConfig, "the image config")
}

// cacheWrote notes a cache write's error: the cache only saves requests,
// so an unwritable one is a warning, given once, and resolution goes on.
func (r *Resolver) cacheWrote(err error) {
	if err == nil || r.o.Warnings == nil {
		return
	}
	r.cacheWarn.Do(func() {
		fmt.Fprintf(r.o.Warnings, "warning: %v; resolving without the cache (set --registry-cache DIR to a writable folder)\n", err)
	})
}

// isImage reports whether a manifest describes a container image: an
// image manifest whose config is an image config.
func isImage(mt types.MediaType, m *v1.Manifest) bool {
	if !mt.IsImage() {
		return false
	}
	switch m.Config.MediaType {
	case types.DockerConfigJSON, types.OCIConfigJSON:
		return true
	}
	return false
}

func notImage(ref string, p name.Reference, mt types.MediaType, m *v1.Manifest) error {
	what := string(mt)
	if m != nil && m.Config.MediaType != "" {
		what = fmt.Sprintf("%s with config %s", mt, m.Config.MediaType)
	}
	return &Error{Ref: ref, Kind: NotAnImage, Host: p.Context().RegistryStr(), Err: fmt.Errorf("%s is a %s", p.Name(), what)}
}

// fromCache answers from cached manifests and configs.
func (r *Resolver) fromCache(ref, digest string) (*winsupport.ResolvedImage, error) {
	mt, raw, ok := r.cache.manifest(digest)
	if !ok {
		return nil, errors.New("manifest not cached")
	}
	var cfg []byte
	if !types.MediaType(mt).IsIndex() {
		m, err := v1.ParseManifest(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if cfg, ok = r.cache.config(m.Config.Digest.String()); !ok {
			return nil, errors.New("config not cached")
		}
	}
	res, err := platforms(ref, digest, mt, raw, cfg)
	if err != nil {
		return nil, err
	}
	res.Cached = true
	return res, nil
}

// platforms reads the platforms of an index, or of a single-platform
// image from its config. Attestation entries (unknown/unknown) are left
// out: nodes never pull them.
func platforms(ref, digest, mediaType string, raw, cfg []byte) (*winsupport.ResolvedImage, error) {
	res := &winsupport.ResolvedImage{Ref: ref, Digest: digest}
	if types.MediaType(mediaType).IsIndex() {
		idx, err := v1.ParseIndexManifest(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("reading index %s: %w", digest, err)
		}
		res.Index = true
		for _, d := range idx.Manifests {
			e := winsupport.PlatformEntry{Digest: d.Digest.String()}
			if d.Platform != nil {
				if d.Platform.OS == "unknown" {
					continue
				}
				e.OS, e.Architecture, e.Variant, e.OSVersion, e.OSFeatures = d.Platform.OS, d.Platform.Architecture, d.Platform.Variant, d.Platform.OSVersion, d.Platform.OSFeatures
			}
			res.Platforms = append(res.Platforms, e)
		}
		return res, nil
	}
	var c struct {
		OS           string   `json:"os"`
		Architecture string   `json:"architecture"`
		Variant      string   `json:"variant"`
		OSVersion    string   `json:"os.version"`
		OSFeatures   []string `json:"os.features"`
		Config       struct {
			User string `json:"User"`
		} `json:"config"`
	}
	if err := json.Unmarshal(cfg, &c); err != nil {
		return nil, fmt.Errorf("reading the image config of %s: %w", digest, err)
	}
	res.Platforms = []winsupport.PlatformEntry{{OS: c.OS, Architecture: c.Architecture, Variant: c.Variant, OSVersion: c.OSVersion, OSFeatures: c.OSFeatures, Digest: digest, User: &c.Config.User}}
	return res, nil
}
