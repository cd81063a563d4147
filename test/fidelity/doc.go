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
//
// # Placement
//
// TestPlacement compares where replicas land rather than where they may.
// Its cases ([PlacementCase]: the reproduction of issue 14, then seeded
// hybrid clusters of 3 to 12 nodes with two or three sizes, two zones,
// PreferNoSchedule taints and pods already bound by name, and two to four
// Deployments of 10 to 50 replicas with ScheduleAnyway spread constraints,
// preferred node affinity and preferred pod (anti-)affinity) run on a
// control plane of their own ([PlacementCluster]): kube-controller-manager
// turns each Deployment into pods as in a cluster, and kube-scheduler runs
// its default profile untouched — no extender, which would change its
// tie-breaking and turn off opportunistic batching. Nodes are created in
// name order before anything else; each Deployment is created once every
// pod of the previous one is bound or unschedulable, since winkube models
// input order sequentially. winkube then simulates the same stored nodes
// and the same objects, deterministically and with seeds 1..k
// (-placement.k); per Deployment and node, the real count must equal the
// deterministic one where every seeded run agrees, and lie within the
// seeded runs' range where they do not (a tie reaches the node).
//
// v1.36's kube-scheduler draws a random tie-breaker only for nodes an
// extender scored (schedule_one.go, prioritizeNodes); otherwise the winner
// is the root of a container/heap built over the feasible nodes in the
// order the parallel filters found them, and repeated runs of these cases
// gave the same counts every time. -placement.exact holds winkube's
// deterministic model to that on every node, ties or not.
package fidelity
