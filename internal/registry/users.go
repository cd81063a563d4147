package registry

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/winkube/winkube/internal/winsupport"
)

// maxUserEntries bounds the Windows entries of an index whose config is
// read for its User: two requests each, and Windows indexes list one
// entry per LTSC build.
const maxUserEntries = 6

// ImageUser is the user the image's Windows configs name, which the
// kubelet's runAsNonRoot check on Windows reads (pkg/kubelet/kuberuntime
// getImageUser); Known is false when the registry cannot say or the
// Windows entries disagree. A single-platform image's config was read
// with its platform; an index's Windows entries cost two requests each,
// made only here, when a rule needs the user.
func (r *Resolver) ImageUser(ref string) winsupport.ImageUser {
	res, err := r.Lookup(ref)
	if err != nil || res == nil {
		return winsupport.ImageUser{}
	}
	if !res.Index {
		return res.User()
	}
	p, err := r.parse(ref)
	if err != nil {
		return winsupport.ImageUser{}
	}
	out := *res
	out.Platforms = append([]winsupport.PlatformEntry(nil), res.Platforms...)
	if r.o.Offline {
		r.windowsUsers(&out, r.cachedEntryConfig)
		return out.User()
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.o.Timeout)
	defer cancel()
	opts := r.remoteOptions(ctx)
	r.windowsUsers(&out, func(d string) ([]byte, bool) { return r.entryConfig(p, d, opts) })
	return out.User()
}

// windowsUsers fills the User of an index's Windows entries from their
// image configs, which config returns by manifest digest. The kubelet's
// runAsNonRoot check on Windows reads that user (pkg/kubelet/kuberuntime
// getImageUser). An entry whose config cannot be read keeps a nil User:
// the user is then unknown, and the platforms still stand.
func (r *Resolver) windowsUsers(res *winsupport.ResolvedImage, config func(digest string) ([]byte, bool)) {
	if !res.Index {
		return
	}
	n := 0
	for i := range res.Platforms {
		e := &res.Platforms[i]
		if e.OS != "windows" || e.Digest == "" || n == maxUserEntries {
			continue
		}
		n++
		cfg, ok := config(e.Digest)
		if !ok {
			continue
		}
		var c struct {
			Config struct {
				User string `json:"User"`
			} `json:"config"`
		}
		if json.Unmarshal(cfg, &c) == nil {
			e.User = &c.Config.User
		}
	}
}

// entryConfig reads the config of the image manifest digest in p's
// repository, from the cache or the registry, and caches what it read.
func (r *Resolver) entryConfig(p name.Reference, digest string, opts []remote.Option) ([]byte, bool) {
	if cfg, ok := r.cachedEntryConfig(digest); ok {
		return cfg, true
	}
	desc, err := remote.Get(p.Context().Digest(digest), opts...)
	if err != nil || !desc.MediaType.IsImage() {
		return nil, false
	}
	m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
	if err != nil || !isImage(desc.MediaType, m) {
		return nil, false
	}
	if r.cache.putManifest(digest, string(desc.MediaType), desc.Manifest) != nil {
		return nil, false
	}
	l, err := remote.Layer(p.Context().Digest(m.Config.Digest.String()), opts...)
	if err != nil {
		return nil, false
	}
	cfg, err := readLayer(l)
	if err != nil || r.cache.putConfig(m.Config.Digest.String(), cfg) != nil {
		return nil, false
	}
	return cfg, true
}

// cachedEntryConfig reads the config of the image manifest digest from
// the cache only.
func (r *Resolver) cachedEntryConfig(digest string) ([]byte, bool) {
	_, raw, ok := r.cache.manifest(digest)
	if !ok {
		return nil, false
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, false
	}
	return r.cache.config(m.Config.Digest.String())
}
