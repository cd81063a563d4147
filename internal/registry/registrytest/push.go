package registrytest

import (
	"fmt"
	"io"
	"log"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }

// Platform is one image to push: os/arch, os.version and os.features,
// and the user its config names ("" for none).
type Platform struct {
	OS, Arch, OSVersion string
	Features            []string
	User                string
}

// Windows is a windows/amd64 platform of the given os.version.
func Windows(osVersion string, features ...string) Platform {
	return Platform{OS: "windows", Arch: "amd64", OSVersion: osVersion, Features: features}
}

// As is p with its config's user set to user.
func (p Platform) As(user string) Platform {
	p.User = user
	return p
}

// Linux is a linux platform of the given architecture.
func Linux(arch string) Platform { return Platform{OS: "linux", Arch: arch} }

// image makes a small image whose config says p. seed makes the content
// (and so the digest) differ between pushes of the same platform.
func image(p Platform, seed int64) (v1.Image, error) {
	img, err := random.Image(32, 1)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.OSVersion, cf.OSFeatures = p.OS, p.Arch, p.OSVersion, p.Features
	cf.Config.Labels = map[string]string{"seed": fmt.Sprint(seed)}
	cf.Config.User = p.User
	return mutate.ConfigFile(img, cf)
}

func (s *Server) ref(ref string) (name.Reference, error) {
	return name.ParseReference(s.Host+"/"+ref, name.Insecure)
}

func (s *Server) auth() remote.Option {
	return remote.WithAuth(&authn.Basic{Username: User, Password: Password})
}

// PushImage pushes a single-platform image as repo:tag ("shop/app:1.0")
// and returns its digest.
func (s *Server) PushImage(ref string, p Platform, seed int64) (string, error) {
	r, err := s.ref(ref)
	if err != nil {
		return "", err
	}
	img, err := image(p, seed)
	if err != nil {
		return "", err
	}
	if err := remote.Write(r, img, s.auth()); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := img.Digest()
	return d.String(), err
}

// PushIndex pushes an OCI index with one image per platform.
func (s *Server) PushIndex(ref string, ps ...Platform) (string, error) {
	r, err := s.ref(ref)
	if err != nil {
		return "", err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for i, p := range ps {
		img, err := image(p, int64(i))
		if err != nil {
			return "", err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch, OSVersion: p.OSVersion, OSFeatures: p.Features}}})
	}
	if err := remote.WriteIndex(r, idx, s.auth()); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := idx.Digest()
	return d.String(), err
}

// PushArtifact pushes a manifest whose config is not an image config (a
// Helm chart's), which no node can run.
func (s *Server) PushArtifact(ref string) error {
	r, err := s.ref(ref)
	if err != nil {
		return err
	}
	img, err := random.Image(32, 1)
	if err != nil {
		return err
	}
	img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), "application/vnd.cncf.helm.config.v1+json")
	return remote.Write(r, img, s.auth())
}
