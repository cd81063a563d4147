// Package docs renders winkube's reference pages in docs/ (the rule
// catalogue, the CLI reference and the Windows support matrix) from the
// rule suite, the command tree and the winsupport tables, so that the
// pages cannot drift from the code: TestDocsUpToDate compares them, and
// `go test ./internal/docs -update` rewrites them.
//
// It is a build-time package: no command imports it, so the cobra import
// it shares with internal/cli stays out of every other package.
package docs
