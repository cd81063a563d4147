// Package config reads .winkube.yaml: which rules run at what severity,
// the Kubernetes version, and the cluster profile lint checks against.
package config
