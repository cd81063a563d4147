// Package apiservertest is a fake Kubernetes API server for tests of what
// reads a live cluster badly served: it answers /version and hands every
// other request to the test's handler.
package apiservertest
