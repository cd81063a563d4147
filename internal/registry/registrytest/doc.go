// Package registrytest runs go-containerregistry's in-process OCI
// registry on 127.0.0.1 for tests and benchmarks, with a private
// repository behind a Bearer token flow, and pushes Windows, Linux and
// mixed images with the platforms a test asks for.
package registrytest
