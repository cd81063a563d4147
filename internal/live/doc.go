// Package live is what winkube knows of a running cluster: a Snapshot of
// the nodes, workloads, pods, RuntimeClasses, Services and events that
// audit and doctor judge, the server version and, when asked for, what
// the Windows nodes' kubelets serve (Kubelet). It holds typed objects
// only; package live/fetch reads them from an API server, so the
// packages that judge a snapshot never depend on client-go.
package live
