// Package simulate predicts what a Kubernetes control plane does with a set
// of manifests on a modelled cluster: API admission, kube-scheduler
// placement and the kubelet's start-up checks, in the words Kubernetes
// itself uses. The Result is data; internal/report/simreport renders it
// as text, JSON or HTML.
//
// # Pipeline
//
// Workloads become pods as their controllers would make them: replicas for
// Deployments, ReplicaSets, ReplicationControllers and StatefulSets,
// parallelism (capped by completions) for Jobs, one Job's worth for a
// CronJob, and for a DaemonSet one pod per node its controller targets
// (the template's node selector, required node affinity and taints, with
// the tolerations the controller adds), pinned with a metadata.name
// matchFields term. Each pod then meets, in the API server's order:
// validation of the workload object (the suite's api-rejection rules run
// by engine.Validate in the API server's order of field errors, rendered
// as apierrors.NewInvalid renders them), the
// DefaultTolerationSeconds and RuntimeClass admission plugins (unknown
// class, overhead, nodeSelector conflict, tolerations merge), and for a
// bare Pod validation after admission. A rejected pod is never scheduled.
//
// Scheduling follows kube-scheduler's default profile filter by filter
// (NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
// NodeResourcesFit, PodTopologySpread, InterPodAffinity), keeping only
// the first failing plugin's reasons per node as the framework does, and
// renders a pending pod's FailedScheduling message as FitError.Error plus
// the PostFilter plugins' message (DynamicResources, DefaultPreemption)
// for the model's Kubernetes version. Bound pods then meet the kubelet:
// its OS admission (PodOSSelectorNodeLabelDoesNotMatch, PodOSNotSupported)
// and image checks (a Linux-only image on Windows and the reverse, a
// Windows image build against the host's under process isolation, Hyper-V
// isolation allowing older builds).
//
// # Speed
//
// Pods of one workload share one template, so admission and the filters
// that read only the node object run once per template and class of
// identical nodes (same labels but the hostname, taints and allocatable),
// not once per node. Within a class, nodes with identical usage share a
// bucket: resource fit and scores are computed per bucket, and for pods
// whose fate depends only on class and usage the feasible buckets sit in
// a heap by score that each binding updates, so a workload's replicas cost
// O(log buckets) each. Pods with host ports, inter-pod affinity or
// topology spread constraints walk the same heap and take, in the best
// bucket, the first node by name that passes those filters, their topology
// counts kept up to date incrementally. Pods that select on the hostname
// or name nodes, and pods of the latter kind whose NodeAffinity or
// TaintToleration scores differ between classes (their normalization
// depends on which nodes the other filters leave), are judged node by
// node. A test checks that every path chooses what judging every node
// would.
//
// # Where the model differs from kube-scheduler
//
//   - Ties. kube-scheduler picks at random among the best-scored nodes;
//     winkube picks the first by name, so runs are reproducible.
//   - Sampling. Above 100 nodes kube-scheduler scores only a share of the
//     feasible nodes (percentageOfNodesToScore); winkube scores them all.
//     Feasibility, and so every FailedScheduling message, is unaffected.
//   - Scores. winkube scores with NodeResourcesFit (LeastAllocated),
//     NodeResourcesBalancedAllocation, NodeAffinity's preferred terms and
//     TaintToleration's PreferNoSchedule, with the default weights; it
//     leaves out PodTopologySpread scoring (including the system default
//     spreading of a workload's replicas), InterPodAffinity's preferred
//     terms and ImageLocality. Where those would decide, replicas may land
//     on different nodes of equal fit.
//   - Priority and preemption. Every pod has the same priority, so
//     preemption never finds a victim: the message reports "No preemption
//     victims found" for nodes it could have helped, as a real cluster of
//     equal-priority pods does.
//   - Volumes. PersistentVolumeClaims are taken to bind anywhere: the
//     volume filters (VolumeBinding, VolumeZone, NodeVolumeLimits,
//     VolumeRestrictions) and dynamic resource claims are not modelled.
//   - Names. Controllers name pods with random suffixes; winkube numbers
//     them (web-0, web-1) and names DaemonSet pods after their node. An
//     admission refusal quotes that name where the API server would quote
//     the controller's generateName.
//   - Versions. Messages are exact for v1.36. For older releases the
//     known differences are applied: taints named in the message before
//     1.34 ("untolerated taint {k: v}" from 1.26, "had taint {k: v}, that
//     the pod didn't tolerate" before), no DynamicResources message before
//     1.34, a doubled period after the preemption message before 1.30 and
//     no preemption message before 1.22.
//   - RuntimeClass conflicts. The admission plugin ranges over a map, so
//     with several conflicting keys the API server names one at random;
//     winkube names the first in sorted order.
//   - Rejected at the kubelet. A pod refused by kubelet admission frees
//     its node; its controller would recreate it, which winkube does not.
package simulate
