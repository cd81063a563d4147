// Package dist tests how winkube is distributed: the GitHub Action, the
// pre-commit hooks, the goreleaser configuration, the krew manifest template
// and `go install` from the module path. Each test runs the real tool where
// one can be had here (bash for the action's steps, Debian's pre-commit,
// goreleaser built by hack/ensure-tools.sh) and fails loudly when it is
// missing.
package dist
