package fidelity

import (
	"fmt"
	"math/rand/v2"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// mixedIndexOffset separates the mixed cases' clusters from the plain
// ones of the same seed: mixed case i starts from NewPlacementCase(seed,
// mixedIndexOffset+i).
const mixedIndexOffset = 1000

// NewMixedPlacementCase generates mixed placement case index of the run
// seed: the cluster, existing pods and Deployments of
// NewPlacementCase(seed, 1000+index), and, from a random stream of its
// own, the other controllers' workloads — a DaemonSet created between two
// Deployments (for Linux or Windows by node selector, for the untainted
// Linux nodes by having no selector, or for every node by tolerating
// everything), a StatefulSet of 5 to 15 replicas (podManagementPolicy
// Parallel: see statefulSet) and a Job with parallelism 5 to 10, each at a
// random place in the order and some with the Deployments' preferences.
// Requests are again kept within the capacity left, so the pods fit.
func NewMixedPlacementCase(seed uint64, index int) *PlacementCase {
	pc := NewPlacementCase(seed, mixedIndexOffset+index)
	pc.Name = fmt.Sprintf("mixed-seed-%d-case-%d", seed, index)
	g := &gen{r: rand.New(rand.NewPCG(seed^0x6d697865, uint64(index))), prefix: fmt.Sprintf("m%d", index)}
	free := usedCapacity(pc)

	// The DaemonSet, between two Deployments.
	var ds *appsv1.DaemonSet
	cpu, mem := pick(g, "50m", "100m", "200m"), pick(g, "64Mi", "128Mi", "256Mi")
	switch g.weighted(35, 30, 15, 20) {
	case 0:
		ds = daemonSet("ds-lin", "linux", false, cpu, mem)
	case 1:
		ds = daemonSet("ds-win", "windows", false, cpu, mem)
	case 2:
		ds = daemonSet("ds-untainted", "", false, cpu, mem)
	default:
		ds = daemonSet("ds-all", "", true, cpu, mem)
	}
	targets := daemonTargets(ds, pc.Nodes)
	for os, n := range targets {
		if !free.fits(os, int32(n), cpu, mem) {
			ds.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
			cpu, mem = "", ""
		}
	}
	for os, n := range targets {
		free.take(os, "", int32(n), cpu, mem)
	}
	at := 1 + g.r.IntN(len(pc.Workloads)-1)
	pc.Workloads = slices.Insert(pc.Workloads, at, Workload(ds))

	// The StatefulSet and the Job, anywhere after the first workload.
	for _, kind := range []string{"StatefulSet", "Job"} {
		os := pick(g, "linux", "windows")
		n := int32(5 + g.r.IntN(11))
		if kind == "Job" {
			n = int32(5 + g.r.IntN(6))
		}
		cpu, mem := pick(g, "50m", "100m", "250m", "500m"), pick(g, "64Mi", "128Mi", "256Mi", "512Mi")
		if !free.fits(os, n, cpu, mem) {
			os = map[string]string{"linux": "windows", "windows": "linux"}[os]
		}
		if !free.fits(os, n, cpu, mem) {
			cpu, mem = "50m", "64Mi"
		}
		if !free.fits(os, n, cpu, mem) {
			cpu, mem = "", ""
		}
		free.take(os, "", n, cpu, mem)
		var w Workload
		if kind == "StatefulSet" {
			ss := statefulSet("ss-"+os[:3], os, n, cpu, mem)
			if g.chance(0.5) {
				g.placementPreferences(ss.Name, &ss.Spec.Template.Spec, pc)
			}
			w = ss
		} else {
			j := job("job-"+os[:3], os, n, cpu, mem)
			if g.chance(0.5) {
				g.placementPreferences(j.Name, &j.Spec.Template.Spec, pc)
			}
			w = j
		}
		at := 1 + g.r.IntN(len(pc.Workloads))
		pc.Workloads = slices.Insert(pc.Workloads, at, w)
	}
	return pc
}

// usedCapacity is the capacity NewPlacementCase left after its existing
// pods and Deployments.
func usedCapacity(pc *PlacementCase) *capacity {
	free := newCapacity(pc.Nodes)
	byName := map[string]*corev1.Node{}
	for _, n := range pc.Nodes {
		byName[n.Name] = n
	}
	for _, p := range pc.Existing {
		r := p.Spec.Containers[0].Resources.Requests
		free.take(byName[p.Spec.NodeName].Labels[corev1.LabelOSStable], p.Spec.NodeName, 1, qty(r, corev1.ResourceCPU), qty(r, corev1.ResourceMemory))
	}
	for _, w := range pc.Workloads {
		if d, ok := w.(*appsv1.Deployment); ok {
			r := d.Spec.Template.Spec.Containers[0].Resources.Requests
			free.take(d.Spec.Template.Spec.NodeSelector[corev1.LabelOSStable], "", *d.Spec.Replicas, qty(r, corev1.ResourceCPU), qty(r, corev1.ResourceMemory))
		}
	}
	return free
}

func qty(r corev1.ResourceList, name corev1.ResourceName) string {
	q, ok := r[name]
	if !ok {
		return ""
	}
	return q.String()
}

// daemonTargets counts, per OS, the nodes a DaemonSet's controller creates
// pods for: those its node selector matches whose NoSchedule and NoExecute
// taints its pods tolerate.
func daemonTargets(ds *appsv1.DaemonSet, nodes []*corev1.Node) map[string]int {
	spec := ds.Spec.Template.Spec
	out := map[string]int{}
	for _, n := range nodes {
		if !labels.SelectorFromSet(spec.NodeSelector).Matches(labels.Set(n.Labels)) {
			continue
		}
		ok := true
		for _, tn := range n.Spec.Taints {
			if tn.Effect == corev1.TaintEffectPreferNoSchedule {
				continue
			}
			tolerated := false
			for _, tol := range spec.Tolerations {
				tolerated = tolerated || tolerates(tol, tn)
			}
			ok = ok && tolerated
		}
		if ok {
			out[n.Labels[corev1.LabelOSStable]]++
		}
	}
	return out
}

// tolerates is Toleration.ToleratesTaint for the tolerations the cases
// use: Exists without a key (everything), or a key Equal to a value.
func tolerates(tol corev1.Toleration, tn corev1.Taint) bool {
	if tol.Effect != "" && tol.Effect != tn.Effect {
		return false
	}
	if tol.Operator == corev1.TolerationOpExists {
		return tol.Key == "" || tol.Key == tn.Key
	}
	return tol.Key == tn.Key && tol.Value == tn.Value
}
