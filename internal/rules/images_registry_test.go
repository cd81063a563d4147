package rules

import (
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

var resolveRE = regexp.MustCompile(`(?m)^#\s*resolve-images\s*$`)

// fixtureImages is the fake registry for fixtures with a "# resolve-images"
// header, nil for the others.
func fixtureImages(t *testing.T, path string) rule.ImageLookup {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !resolveRE.Match(b) {
		return nil
	}
	return fakeRegistry
}

// fakeLookup is an in-memory registry: the real one is tested in
// internal/registry against go-containerregistry's registry.
type fakeLookup map[string]any // ref -> *winsupport.ResolvedImage or error

func (f fakeLookup) Lookup(ref string) (*winsupport.ResolvedImage, error) {
	switch v := f[ref].(type) {
	case *winsupport.ResolvedImage:
		return v, nil
	case error:
		return nil, v
	}
	return nil, errors.New("MANIFEST_UNKNOWN: manifest unknown")
}

// ImageUser reads the user of the image's Windows entries, as the
// registry package's Resolver does.
func (f fakeLookup) ImageUser(ref string) winsupport.ImageUser {
	if r, err := f.Lookup(ref); err == nil {
		return r.User()
	}
	return winsupport.ImageUser{}
}

// as is e with its config's user.
func as(user string, e winsupport.PlatformEntry) winsupport.PlatformEntry {
	e.User = &user
	return e
}

type hinted struct{ msg, hint string }

func (h hinted) Error() string       { return h.msg }
func (h hinted) ResolveHint() string { return h.hint }

func win(v string, features ...string) winsupport.PlatformEntry {
	return winsupport.PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: v, OSFeatures: features}
}

var linuxAMD64 = winsupport.PlatformEntry{OS: "linux", Architecture: "amd64"}

func index(ref string, ps ...winsupport.PlatformEntry) *winsupport.ResolvedImage {
	return &winsupport.ResolvedImage{Ref: ref, Digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Index: len(ps) > 1, Platforms: ps}
}

var fakeRegistry = fakeLookup{
	"registry.example.com/shop/orders:1.4.2":    index("registry.example.com/shop/orders:1.4.2", win("10.0.20348.2461")),
	"registry.example.com/shop/legacy:3.0":      index("registry.example.com/shop/legacy:3.0", win("10.0.17763.5820")),
	"registry.example.com/shop/multi:2.0":       index("registry.example.com/shop/multi:2.0", linuxAMD64, win("10.0.17763.5820"), win("10.0.20348.2461"), win("10.0.26100.2894", "win32k")),
	"registry.example.com/shop/next:1.0":        index("registry.example.com/shop/next:1.0", win("10.0.26100.2894")),
	"registry.example.com/tools/linux-only:1.0": index("registry.example.com/tools/linux-only:1.0", linuxAMD64),
	"registry.example.com/shop/admin:1.0":       index("registry.example.com/shop/admin:1.0", as("ContainerAdministrator", win("10.0.20348.2461"))),
	"registry.example.com/shop/core:1.0":        index("registry.example.com/shop/core:1.0", linuxAMD64, as("", win("10.0.20348.2461")), as("", win("10.0.26100.2894"))),
	"registry.example.com/shop/nano:1.0":        index("registry.example.com/shop/nano:1.0", as("ContainerUser", win("10.0.20348.2461"))),
	"registry.example.com/private/app:1.0":      hinted{"UNAUTHORIZED: authentication required", "log in with docker login registry.example.com, or pass --registry-config"},
}
