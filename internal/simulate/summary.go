package simulate

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// workloadResults summarises the pods per workload, in input order.
func workloadResults(wls []*workload, pods []PodResult) []WorkloadResult {
	byRef := make(map[string]int, len(wls))
	out := make([]WorkloadResult, len(wls))
	for i, wl := range wls {
		out[i] = WorkloadResult{Workload: wl.ref, File: wl.obj.File, MoreFit: moreFitOf(wl)}
		out[i].Line, _ = wl.obj.Locate("")
		if wl.daemon && len(wl.targets) == 0 {
			out[i].Explanation = wl.untargeted
		}
		byRef[wl.ref] = i
	}
	// Bound pods per workload and pool, and per workload and node: one
	// map each for the whole run (a live cluster's pods are each a
	// workload of their own).
	type key struct {
		w    int
		name string
	}
	placed, onNode := map[key]int{}, map[key]int{}
	for _, p := range pods {
		i, ok := byRef[p.Workload]
		if !ok {
			continue
		}
		w := &out[i]
		w.Replicas += p.Pods()
		switch {
		case p.Rejected:
			w.Rejected += p.Pods()
			if w.RejectMessage == "" {
				w.RejectMessage = p.RejectMessage
			}
		case p.Pending:
			if w.Pending == 0 {
				w.PendingMessage, w.Explanation = p.Message, p.Explanation
			}
			w.Pending += p.Pods()
		default:
			if p.StartFailure != "" {
				w.StartFailures++
				if w.StartFailure == "" {
					w.StartFailure = p.StartFailure
				}
			}
			placed[key{i, p.Pool}]++
			onNode[key{i, p.Node}]++
		}
		if w.NotModelled == nil {
			w.NotModelled = p.NotModelled
		}
	}
	for k, n := range placed {
		out[k.w].Placed = append(out[k.w].Placed, PoolCount{Pool: k.name, Count: n})
	}
	for k, c := range onNode {
		out[k.w].Nodes = append(out[k.w].Nodes, NodeCount{Node: k.name, Count: c, Min: c, Max: c})
	}
	for i := range out {
		if len(out[i].Placed) > 1 {
			sort.Slice(out[i].Placed, func(a, b int) bool { return out[i].Placed[a].Pool < out[i].Placed[b].Pool })
		}
		if len(out[i].Nodes) > 1 {
			sort.Slice(out[i].Nodes, func(a, b int) bool { return out[i].Nodes[a].Node < out[i].Nodes[b].Node })
		}
	}
	return out
}

func moreFitOf(wl *workload) *int {
	if wl.result == nil {
		return nil
	}
	return wl.result.MoreFit
}

// poolUsage sums requests and allocatable per pool, sorted by pool name.
func poolUsage(nodes []*node) []PoolUsage {
	byPool := map[string]*PoolUsage{}
	var names []string
	for _, n := range nodes {
		u := byPool[n.pool]
		if u == nil {
			u = &PoolUsage{Pool: n.pool, OS: n.os}
			byPool[n.pool] = u
			names = append(names, n.pool)
		}
		u.Nodes++
		u.Requested.MilliCPU += n.used.MilliCPU
		u.Requested.Memory += n.used.Memory
		u.Requested.Pods += int64(len(n.pods))
		u.Allocatable.MilliCPU += n.alloc.MilliCPU
		u.Allocatable.Memory += n.alloc.Memory
		u.Allocatable.Pods += int64(n.allowed)
	}
	sort.Strings(names)
	out := make([]PoolUsage, len(names))
	for i, name := range names {
		out[i] = *byPool[name]
	}
	return out
}

// notModelled lists what a pod uses that winkube does not model.
func notModelled(pod *corev1.Pod, sp *schedPod) []string {
	var out []string
	s := &pod.Spec
	if sp.affinity != nil && sp.affinity.nsSelector {
		out = append(out, "pod (anti-)affinity namespaceSelector: namespace labels are unknown, so the term is taken to match every namespace")
	}
	for _, v := range s.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			out = append(out, "PersistentVolumeClaim volumes: volume binding, zones and attach limits (VolumeBinding, VolumeZone, NodeVolumeLimits) are not modelled; claims are taken to bind anywhere")
			break
		}
	}
	if s.PriorityClassName != "" {
		out = append(out, fmt.Sprintf("priorityClassName %s: priorities and preemption are not modelled; every pod has the same priority", s.PriorityClassName))
	}
	if len(s.ResourceClaims) > 0 {
		out = append(out, "resourceClaims: dynamic resource allocation is not modelled")
	}
	if s.SchedulerName != "" && s.SchedulerName != corev1.DefaultSchedulerName {
		out = append(out, fmt.Sprintf("schedulerName %s: another scheduler places this pod; winkube models default-scheduler", s.SchedulerName))
	}
	return out
}

// modelNotes are the input-wide ways the model may differ from the cluster.
func modelNotes(s *scheduler, total int) []string {
	var out []string
	n := len(s.nodes)
	switch {
	case n >= 100 && !s.scoredPath():
		out = append(out, fmt.Sprintf("the cluster has %d nodes: from 100 nodes kube-scheduler scores a rotating sample of the feasible nodes (percentageOfNodesToScore) found by parallel filters, so which of several good nodes a pod gets is not reproducible; winkube scored every feasible node by resources, node affinity and taints, leaving out topology spreading and inter-pod preferences (--full-scoring models them and the sampling)", n))
	case n >= 100:
		out = append(out, fmt.Sprintf("the cluster has %d nodes: kube-scheduler scores a rotating sample of %d feasible nodes per pod, found by parallel filters, so ties between equally scored nodes fall differently from run to run", n, s.prof.numNodesToFind(n)))
	}
	if s.rand != nil {
		out = append(out, "ties between equally scored nodes were broken at random with the given seed, as a scheduler whose parallel filters finished in another order would")
	}
	if !s.recordFeasible {
		out = append(out, fmt.Sprintf("feasible node lists are left out: %d pods on %d nodes would not fit in memory", total, len(s.nodes)))
	}
	return out
}
