// Package depcheck holds the test that guards winkube's dependency graph:
// heavy modules stay out of the light packages, and the k8s.io libraries
// stay at the version of the control plane the tests run against.
package depcheck
