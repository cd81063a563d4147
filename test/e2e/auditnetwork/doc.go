// Package auditnetwork tests what winkube audit reads of the Windows
// pools' network plugins from a real kube-apiserver v1.36.3: Node
// annotations a CNI agent writes and CNI DaemonSet pods bound to the
// nodes, and the NetworkPolicy findings that follow.
package auditnetwork
