// Package audit judges a live cluster: node rules over the nodes' own
// facts (taints, build labels, kubelet and containerd versions, reserve,
// readiness), winkube's lint rules over the live workloads through the
// same engine lint uses, and the simulation on the live nodes with the
// running pods already placed. It reads a live.Snapshot and never talks
// to the API server itself.
package audit
