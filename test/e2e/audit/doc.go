// Package audit tests winkube audit and winkube doctor against a real
// kube-apiserver v1.36.3: nodes of each OS and Windows build with their
// status, workloads, pods with their statuses and events written as a
// kubelet and kube-scheduler write them, through both event APIs. Every
// node rule and every doctor cause has a scenario; the reports are
// compared with golden files (go test -update regenerates them), and the
// audit also runs under the shipped ClusterRole with a ServiceAccount
// token.
package audit
