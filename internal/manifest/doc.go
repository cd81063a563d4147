// Package manifest loads Kubernetes manifests from files, folders and stdin
// into objects that remember where every field came from.
//
// A document is split from its file, parsed into a position-carrying Node
// tree, and decoded into the typed k8s.io/api struct for the kinds winkube
// understands. Parsing takes a fast path for the block-style YAML that
// manifests are written in (fast.go) and hands anything else to yaml.v3;
// both give the same tree. Problems never stop a run: each becomes an
// *Error naming the file, line and column with a hint, and the other
// documents are still read.
package manifest
