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
// # Order of the files
//
// A file uses only files of its own stage or of earlier ones, so the
// package reads in the pipeline's order (TestFileOrder holds the files to
// it, the scheduling stage in its three parts):
//
//   - Input and shared words: message.go (the reasons and messages
//     Kubernetes prints), resources.go, parallel.go, profile.go and
//     schedconfig.go (the scheduler profile and its configuration file),
//     memo.go (the API server's validation of workload objects, shared
//     through a Memo), api.go (Input and Result).
//   - Admission: admission.go, the API server's defaults and admission
//     plugins.
//   - Scheduling, from one pod up to the decision: interpod.go and
//     spread.go (the pod's inter-pod terms and spread constraints),
//     schedpod.go (the pod as the scheduler reads it), filters.go (the
//     filters that read only the node object), nodes.go (nodes, classes,
//     buckets and bound pods); what the cluster state keeps per template
//     (interpodcounts.go, spreadcounts.go, score.go, nodeimages.go,
//     fastheap.go, decision.go, tmpl.go); scheduler.go, that state, with
//     bind and the filters; then the cycle over it: softspread.go,
//     interpodscore.go and scored.go score, fast.go is the bucket path,
//     decide.go runs schedule as filter, then explain or pick; explain.go
//     words a pending pod's reasons, daemonset.go finds a DaemonSet's
//     nodes.
//   - Kubelet: kubelet.go, with images.go's record of registry lookups.
//   - Workloads: workloads.go, an input object that creates pods and
//     what each stage made of them (so it stands above the stages), and
//     defaultselector.go.
//   - Summary: summary.go, counts.go, deps.go.
//   - Run: runner.go takes each pod through the stages, max.go answers
//     --max, run.go is Run.
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
// # Scoring
//
// Feasible nodes are scored as the default profile of kube-scheduler v1.36
// scores them, with its weights and normalization: NodeResourcesFit
// (LeastAllocated, or the configured MostAllocated or
// RequestedToCapacityRatio over cpu and memory), BalancedAllocation,
// TaintToleration's PreferNoSchedule, NodeAffinity's preferred terms,
// PodTopologySpread (the pod's ScheduleAnyway constraints, or the system
// defaults, hostname maxSkew 3 and zone maxSkew 5, with the selector of
// the Services and controller that match the pod), InterPodAffinity (the
// pod's preferred terms, and bound pods' preferred and required affinity
// terms) and ImageLocality (from nodes' status.images). A
// KubeSchedulerConfiguration (ParseSchedulerConfig) changes weights,
// disabled plugins, the fit strategy, the default constraints and
// InterPodAffinity's arguments. Nodes are visited in the scheduler
// snapshot's order (zones in turn, nodes in the order they joined) from
// where the previous pod stopped, and the node bound is the one
// container/heap leaves at the root of the score heap over the feasible
// nodes in that order, which is how the scheduler breaks ties when no
// extender sets a randomizer. Its filters run in parallel, so that order
// can differ from run to run; a seed shuffles it, and Input.TieRuns
// seeded runs give each node's range where ties decided. From 100 nodes,
// where the search stops once it has found enough feasible nodes, which
// nodes those are depends on the same race: a seed draws one interleaving
// of the workers over their chunks of nodes (parallel.go), which also
// moves where the next pod's search starts. With parallelism 1 in the
// scheduler's configuration the real scheduler checks nodes in order and
// matches the deterministic run exactly (test/fidelity TestPlacementLarge).
//
// Under 100 nodes the scheduler scores every feasible node, and so does
// winkube. From 100 nodes it stops filtering after
// percentageOfNodesToScore's share of feasible nodes; winkube models that
// sampling with Input.FullScoring, a seed or a custom profile. By default
// it places pods in large clusters by the bucket paths above, scoring
// every feasible node by resources, node affinity and taints, because
// scoring every plugin node by node costs about 0.1 ms per pod at 5,000
// nodes and the choice among good nodes is not reproducible there anyway.
//
// # Where the model differs from kube-scheduler
//
//   - Ties and order. The filters' parallel workers finish in an order
//     winkube takes to be the snapshot's; a real run may bind another of
//     the equally scored nodes, within the reported range.
//   - Large clusters. See Scoring: without --full-scoring, topology
//     spreading and inter-pod preferences are not scored from 100 nodes.
//   - Opportunistic batching (on by default since 1.35) reuses an earlier
//     pod's scores only for pods the default profile can sign, which
//     excludes every pod under the system default spreading; a custom
//     profile without default constraints could batch where winkube
//     rescores.
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
