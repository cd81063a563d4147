// Package fetch reads a running cluster into a live.Snapshot. It is the
// only package that imports client-go for that: lists are paginated
// (limit/continue), asked for in protobuf and run in parallel under a
// raised client-side rate limit; a kind the credentials may not list is
// recorded as live.Denied, not an error. Secrets are never read.
// ReadKubelets reads the kubelets' /configz, /stats/summary and node log
// query, directly or through the API server's node proxy, bounded in
// requests in flight, time and bytes; what cannot be read is recorded as
// live.Unread.
package fetch
