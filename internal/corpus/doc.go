// Package corpus holds the regression test that lints the real-world
// manifests in testdata/real (copied, with their sources and licences, from
// the shared corpus) and compares the findings with a golden file.
package corpus
