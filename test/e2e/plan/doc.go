// Package plan checks winkube plan end to end: its HTML report as headless
// Chromium renders it, and its PodDisruptionBudget-aware drain order
// against a real kube-apiserver's eviction API.
package plan
