// Package live is what winkube knows of a running cluster: a Snapshot of
// the nodes, workloads, pods, RuntimeClasses, Services and events that
// audit and doctor judge, the server version and, when asked for, what
// the Windows nodes' kubelets serve (Kubelet). It holds typed objects
// only; package live/fetch reads them from an API server, so the
// packages that judge a snapshot never depend on client-go.
//
// It also holds what audit and doctor both do with a snapshot, so that
// neither imports the other: resolving pods to the workloads users wrote
// (Owners, TopLevel), the support model of the server's version
// (ModelFor), the lint engine over the live objects (Lint) and the
// cluster as it stands as simulation input (PlacedInput).
package live
