// Package fixdryrun runs `winkube fix --unsafe --write` over the examples
// and the real corpus and holds the result to a real kube-apiserver
// (server-side dry run).
package fixdryrun
