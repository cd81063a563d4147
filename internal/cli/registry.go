package cli

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/registry"
	"github.com/winkube/winkube/internal/rule"
)

// registryFlags are the flags of commands that ask registries.
type registryFlags struct {
	resolveImages bool
	config        string
	insecure      []string
	offline       bool
	cacheDir      string
	tagTTL        time.Duration
	timeout       time.Duration
	active        *registry.Resolver
}

// addRegistryFlags adds the registry flags; withResolve adds
// --resolve-images too (lint and simulate, where it is opt-in).
func (r *registryFlags) addRegistryFlags(f *pflag.FlagSet, withResolve bool) {
	if withResolve {
		f.BoolVar(&r.resolveImages, "resolve-images", false, "read each image's platforms (os, architecture, os.version) from its registry instead of guessing from the tag")
	}
	f.StringVar(&r.config, "registry-config", "", "Docker config.json with registry credentials (default ~/.docker/config.json, $DOCKER_CONFIG)")
	f.StringArrayVar(&r.insecure, "insecure-registry", nil, "registry HOST[:PORT] to speak plain HTTP to (repeatable)")
	f.BoolVar(&r.offline, "offline", false, "answer only from the image cache of earlier runs")
	f.StringVar(&r.cacheDir, "registry-cache", "", "image cache directory (default winkube/images under the user cache dir)")
	f.DurationVar(&r.tagTTL, "registry-cache-ttl", time.Hour, "how long a tag's cached digest is trusted")
	f.DurationVar(&r.timeout, "registry-timeout", 30*time.Second, "time limit per image, retries included")
}

// resolver returns the registry resolver, nil when images are not
// resolved. The progress line goes to stderr only on a terminal.
func (r *registryFlags) resolver(s Streams, quiet bool) (*registry.Resolver, error) {
	o := registry.Options{ConfigFile: r.config, Insecure: r.insecure, Offline: r.offline, CacheDir: r.cacheDir, TagTTL: r.tagTTL, Timeout: r.timeout, Warnings: s.Err}
	if !quiet && s.ErrIsTerminal() {
		o.Progress = s.Err
	}
	res, err := registry.New(o)
	if err != nil {
		return nil, usageError{err}
	}
	return res, nil
}

// lookup is the engine's image lookup: nil without --resolve-images.
// Call doneImages when the run is over.
func (r *registryFlags) lookup(s Streams, quiet bool) (rule.ImageLookup, error) {
	if !r.resolveImages {
		return nil, nil
	}
	res, err := r.resolver(s, quiet)
	if err != nil {
		return nil, err
	}
	r.active = res
	return res, nil
}

// doneImages ends the resolver's progress line.
func (r *registryFlags) doneImages() {
	if r.active != nil {
		r.active.Done()
	}
}

// ErrIsTerminal reports whether Err is a terminal.
func (s Streams) ErrIsTerminal() bool {
	f, ok := s.Err.(*os.File)
	return ok && isTerminal(f)
}
