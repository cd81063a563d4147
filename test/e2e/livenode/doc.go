// Package livenode tests reading the Windows nodes' kubelets end to end:
// a real kube-apiserver proxies to fake kubelets (package kubelettest)
// listening on a veth pair with TEST-NET-1 addresses (the API server
// refuses to proxy to loopback), which authorize direct requests with
// TokenReviews and SubjectAccessReviews against that API server, so the
// RBAC split of deploy/audit-rbac.yaml and deploy/audit-node-proxy-rbac.yaml
// is what decides.
package livenode
