// Package fidelity checks winkube's simulator against the real
// kube-apiserver and kube-scheduler.
//
// A seeded generator builds hundreds of small cases — a hybrid cluster with
// the taint conventions, Windows builds and tight capacity seen in real
// clusters, RuntimeClasses, and a few pods exercising node selectors, node
// affinity, tolerations, resources, host ports and spec.os — and every case
// runs twice: through simulate.Run, and through a real v1.36.3 control plane
// (test/controlplane) where the pods are created one at a time. For each
// pod the two must agree on admission (and the API server's message), on
// whether it is scheduled (and the FailedScheduling message, byte for byte),
// and on the set of feasible nodes.
//
// The real feasible set comes from the scheduler itself: the control plane
// runs with a scheduler extender served by the test (see [Extender]). The
// scheduler calls an extender's filter with exactly the nodes that passed
// every in-tree filter plugin, so the extender records that set — exact, one
// HTTP call per pod, and without creating extra pods that would disturb the
// cluster's resource accounting. The extender also answers with winkube's
// chosen node when that node is feasible: ties between feasible nodes are
// broken by scores and chance, and pinning the real binding to winkube's
// choice keeps the two clusters in the same state for the later pods of the
// case, so their comparisons stay meaningful.
//
// A case that disagrees is written to testdata/failures/ as a manifest
// (nodes, RuntimeClasses, pods) headed by its seed, the mismatches and the
// real outcome; files there are replayed by every run.
package fidelity
