// Package version says which build of winkube is running: the module
// version and VCS revision the Go toolchain stamped into the binary (or the
// release's version set at link time) and the Kubernetes releases the
// Windows support model covers.
package version
