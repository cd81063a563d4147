// Package webhook runs the admission webhook behind a real kube-apiserver
// with the objects of deploy/webhook.yaml, and benchmarks pod creation
// through it.
package webhook
