// Package doctor explains why pods are stuck. For each unhealthy pod it
// joins the pod's status, its events (by the pod's UID, never by name),
// its node's facts, its owner, and winkube's own lint and simulate
// verdicts, and names causes from a catalogue. Each cause is a
// documented value: a stable ID, what it is, why it happens on Windows,
// the runbook steps of the seeds and the commands to run next.
//
// Runtime errors reach the API server wrapped by several layers (the CRI
// call's "rpc error: code = ... desc =", containerd's "failed to create
// containerd task: failed to create shim task:", hcsshim's
// "hcs::CreateComputeSystem <id>:", Docker's "(0xc0370101)"), with
// capitalisation that differs between containerd, cri-dockerd and
// hcsshim. Matchers therefore look for the innermost message,
// case-insensitively, anywhere in the text.
package doctor
