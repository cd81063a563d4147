// Package live reads a running cluster into a Snapshot: the nodes,
// workloads, pods, RuntimeClasses, Services and events that audit and
// doctor judge, and the server version. It is the only package that
// talks to an API server; everything downstream works on the typed
// objects it returns.
//
// Lists are paginated (limit/continue) and asked for in protobuf; they
// run in parallel under a raised client-side rate limit. A kind the
// credentials may not list does not stop the read: it is recorded as a
// Denied entry naming the permission to grant. Secrets are never read.
package live
