// Package corpus holds the regression test that lints the real-world
// manifests in ../shared/corpus/real and compares the findings with a
// golden file.
package corpus
