// Package generate writes a Windows node's configuration (kubelet,
// kube-proxy, containerd, CNI and the PowerShell that registers the
// services) from a small versioned WindowsNode description, so that what
// it writes passes every node rule.
package generate
