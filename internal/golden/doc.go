// Package golden compares a test's output with a file kept beside the
// test and rewrites the file when the test binary runs with -update.
package golden
