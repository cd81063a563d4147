// Package e2e checks winkube's node configuration against the pinned
// Kubernetes release's own kubelet and kube-proxy config validation, run
// by hack/controlplane/nodeconfig-validate (built by
// hack/build-controlplane.sh). It lives apart from package nodeconfig so
// that a rule author's `go test ./internal/nodeconfig` builds nothing.
package e2e
