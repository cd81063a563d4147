package simulate

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// runner carries one simulation.
type runner struct {
	m      winsupport.Model
	images *recordingLookup // the registry's platforms; nil to read tags
	rcs    map[string]*nodev1.RuntimeClass
	s      *scheduler
	// noKubelets keeps pods a kubelet would refuse bound (Input.NoKubelets).
	noKubelets bool
	// stored says the input's Pods exist already (Input.Stored).
	stored bool
	// starts remembers which workloads start on which classes of nodes:
	// the kubelet's checks read only the pod and the node's OS and build.
	starts map[startKey]bool
	memo   *Memo // Input.Memo
	// rescheduleRepeats is runOptions.rescheduleRepeats.
	rescheduleRepeats bool
}

type startKey struct {
	wl *workload
	c  *class
}

// startFailure is what the kubelet on n does with the workload's pod.
func (r *runner) startFailure(wl *workload, n *node) string {
	k := startKey{wl, n.class}
	if ok, seen := r.starts[k]; seen && ok {
		return ""
	}
	msg := startFailure(wl.pod, n.obj, r.hyperV(wl.pod), r.m, r.lookup())
	r.starts[k] = msg == ""
	return msg
}

// lookup is the image lookup, a nil interface when there is none.
func (r *runner) lookup() rule.ImageLookup {
	if r.images == nil {
		return nil
	}
	return r.images
}

// prepare admits every workload's pod template: the workload's own
// validation, the pod the controller creates, RuntimeClass admission, and
// for a DaemonSet the nodes its controller makes pods for.
func (r *runner) prepare(wls []*workload, services serviceIndex) {
	objs := make([]*manifest.Object, 0, len(wls))
	for _, wl := range wls {
		if !r.existing(wl) {
			objs = append(objs, wl.obj)
		}
	}
	invalid := r.memo.validate(objs, r.rcs, r.m)
	for _, wl := range wls {
		wl.invalid = invalid[wl.obj]
		wl.pod = podFor(wl)
		if wl.daemon {
			wl.targets = daemonTargets(wl.pod, r.s.nodes)
			wl.count = len(wl.targets)
			if wl.count == 0 {
				wl.untargeted = daemonUntargeted(wl.pod, r.s.nodes)
			}
		}
		// Admission plugins run in the API server's order: Priority, then
		// RuntimeClass (DefaultTolerationSeconds already ran in podFor).
		// A pod that exists was admitted.
		if !r.existing(wl) {
			wl.forbidden = admitPriority(wl.pod)
			if wl.forbidden == "" {
				wl.forbidden = admitRuntimeClass(wl.pod, r.rcs)
			}
		}
		wl.sched = newSchedPod(wl.pod, wl.daemon)
		sel, own := defaultSelector(wl, wl.pod, services)
		wl.sched.soft = newSoftSpread(wl.pod, r.s.prof, sel, own)
	}
}

// existing reports whether the workload is a pod the API server stores
// already (Input.Stored).
func (r *runner) existing(wl *workload) bool {
	return r.stored && wl.obj.Kind == "Pod"
}

// listedPods is how many pods of a workload get a result each before a
// refused or pending one stands for all the rest.
const listedPods = 1000

// place creates, admits, schedules and starts the workload's pods.
func (r *runner) place(ctx context.Context, wl *workload) ([]PodResult, error) {
	t := newTmpl(wl.sched)
	notModelled := notModelled(wl.pod, wl.sched)
	out := make([]PodResult, 0, min(wl.count, listedPods+1))
	repeat := false // the previous replica's pending result stands for this one
	for i := 0; i < wl.count; i++ {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pr := PodResult{Workload: wl.ref, Namespace: wl.ns, Pod: wl.podName(i), NotModelled: notModelled}
		switch msg := wl.refusal(pr.Pod); {
		case msg != "":
			pr.Rejected, pr.RejectMessage = true, msg
		case repeat:
			pr = out[len(out)-1]
			pr.Pod = wl.podName(i)
		default:
			var target *node
			if wl.daemon {
				target = wl.targets[i]
			}
			before := r.s.state()
			r.runPod(t, wl, i, target, &pr)
			// A pending pod binds nothing; when the cycle also left where
			// the next search starts and drew no random number, the next
			// replica (the same template, and no node named per replica)
			// meets the same scheduler and gets the same answer.
			repeat = pr.Pending && !wl.daemon && r.s.rand == nil && r.s.state() == before && !r.rescheduleRepeats
		}
		// A refused or pending pod changes nothing in the cluster: every
		// later replica gets the same answer. Past the first listedPods
		// pods, one result stands for the rest, so replicas: 2147483647
		// costs no more than a full cluster.
		if (pr.Rejected || pr.Pending) && !wl.daemon && i >= listedPods && i < wl.count-1 {
			pr.Repeat = wl.count - 1 - i
			out = append(out, pr)
			break
		}
		out = append(out, pr)
	}
	return out, nil
}

// refusal is the API server's refusal of the pod named pod, if any. A
// bare Pod meets admission before validation; a controller's pods exist
// only once the workload itself passed validation.
func (wl *workload) refusal(pod string) string {
	forbid := ""
	if wl.forbidden != "" {
		forbid = forbidden(pod, wl.forbidden)
	}
	if wl.obj.Kind == "Pod" && forbid != "" {
		return forbid
	}
	if wl.invalid != "" {
		return wl.invalid
	}
	return forbid
}

// runPod schedules (or, for spec.nodeName, hands to the kubelet) the i-th pod
// and records the outcome.
func (r *runner) runPod(t *tmpl, wl *workload, i int, target *node, pr *PodResult) {
	sp := wl.sched
	if gates := wl.pod.Spec.SchedulingGates; len(gates) > 0 {
		// The API server sets the PodScheduled condition; the scheduler
		// does not try the pod, so there is no FailedScheduling event.
		pr.Pending, pr.Message = true, schedulingGated
		pr.Explanation = []string{fmt.Sprintf("the pod has %d scheduling gate(s), starting with %q: kube-scheduler leaves it Pending (SchedulingGated) until they are removed", len(gates), gates[0].Name)}
		return
	}
	if name := wl.pod.Spec.NodeName; name != "" {
		r.runNamed(t, wl, i, name, pr)
		return
	}
	d := r.s.schedule(t, target)
	pr.Feasible = feasibleNames(d.feasible)
	switch {
	case d.noNodes:
		pr.Pending, pr.Message = true, "no nodes available to schedule pods"
	case d.node == nil:
		pr.Pending, pr.Message = true, d.fit.message(r.m)
		pr.Explanation = explain(sp, d, r.m)
	default:
		r.bindAndStart(t, wl, i, d.node, pr)
	}
}

// runNamed handles a pod that names its node: the scheduler never sees
// it; the named kubelet admits it or not.
func (r *runner) runNamed(t *tmpl, wl *workload, i int, name string, pr *PodResult) {
	n := r.s.byName[name]
	if n == nil {
		pr.Pending = true
		pr.Explanation = []string{fmt.Sprintf("spec.nodeName is %s, which is not in the cluster: no scheduler or kubelet takes the pod, so it stays Pending without an event", name)}
		return
	}
	pr.Node, pr.Pool = n.name, n.pool
	if msg := kubeletAdmitNamed(wl.sched, n, r.m); msg != "" {
		pr.StartFailure = msg
		return
	}
	r.bindAndStart(t, wl, i, n, pr)
}

// bindAndStart binds the pod to n and asks what its kubelet does. A pod
// the kubelet refuses to admit ends Failed and frees its resources.
func (r *runner) bindAndStart(t *tmpl, wl *workload, i int, n *node, pr *PodResult) {
	pr.Node, pr.Pool = n.name, n.pool
	r.s.bind(t, n, wl.replicaLabelSet(i))
	pr.StartFailure = podNamed(r.startFailure(wl, n), wl.pod, pr.Pod)
	if !r.noKubelets && (pr.StartFailure == podOSNotSupported || pr.StartFailure == podOSSelectorMismatch) {
		r.s.unbind()
	}
	if pr.StartFailure == "" && n.os == "windows" && !target.HostProcess(&wl.pod.Spec) {
		if !wl.unknownDone {
			wl.unknown, wl.unknownDone = unknownImages(wl.pod, r.m), true
		}
		for _, img := range wl.unknown {
			pr.NotModelled = append(slices.Clip(pr.NotModelled),
				fmt.Sprintf("image %s: winkube does not know which platforms it is published for, so whether it starts on Windows nodes is not checked", img))
		}
	}
}

// unknownImages lists the pod's images whose platforms the model does not
// know.
func unknownImages(pod *corev1.Pod, m winsupport.Model) []string {
	var out []string
	for _, c := range pod.Spec.InitContainers {
		if m.ParseImage(c.Image).Platform == winsupport.PlatformUnknown {
			out = append(out, c.Image)
		}
	}
	for _, c := range pod.Spec.Containers {
		if m.ParseImage(c.Image).Platform == winsupport.PlatformUnknown {
			out = append(out, c.Image)
		}
	}
	return out
}

// hyperV reports whether the pod's RuntimeClass selects Hyper-V isolation.
func (r *runner) hyperV(pod *corev1.Pod) bool {
	if pod.Spec.RuntimeClassName == nil {
		return false
	}
	rc := r.rcs[*pod.Spec.RuntimeClassName]
	return rc != nil && r.m.HyperVHandler(rc.Handler)
}
