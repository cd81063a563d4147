// Package plan answers what a change to a cluster (a pool's Windows build,
// a Kubernetes or containerd upgrade, a taint, a RuntimeClass, a whole
// target cluster file) does to every workload before it is made, and how
// to make it blue/green.
//
// It composes what winkube already has and adds no model of its own: the
// target cluster is the current one with the changes applied; the
// simulator runs on both (admission, kube-scheduler, the kubelet's image
// checks), so a workload's after-state is exactly what `winkube simulate`
// says of the target; the lint engine runs on both, and the rule findings
// that only the target raises are the causes in the rules' own words; a
// runtime cause is the simulator's message, whose first word is the
// Kubernetes reason (FailedScheduling, ErrImagePull, CreateContainerError,
// FailedCreatePodSandBox). The migration steps put the replaced pool's
// pods through the eviction API's rule: a pod may be evicted while its
// PodDisruptionBudget's disruptionsAllowed is above zero
// (kubernetes/kubernetes v1.36.3
// pkg/registry/core/pod/storage/eviction.go, checkAndDecrement), so the
// drain goes in waves of at most disruptionsAllowed pods per budget, each
// wave waiting for the replacements to be ready.
package plan
