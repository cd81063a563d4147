// Package registry resolves image references to their digest and
// platforms (os, architecture, os.version, os.features) from the
// registry: from the index, or from the config blob of a single-platform
// image. It is the only package that speaks to registries, and the only
// one that imports go-containerregistry.
//
// A Resolver asks once per repository:tag per run (concurrent callers
// share the request), bounds its concurrency, times out and retries on 429
// and 5xx. Manifests and configs are cached on disk by digest and tags for
// a TTL, so a second run, or an --offline one, answers from the cache.
// Every failure is an *Error saying what went wrong and what to do; the
// caller turns it into a finding, never into a silent fallback.
package registry
