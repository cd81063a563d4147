package plan_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/controlplane"
)

// TestDrainOrderAgainstEvictionAPI replays the plan's drain against a real
// kube-apiserver with the disruption controller: the workloads are
// ReplicaSets whose pods the test binds to the nodes the plan's
// simulation chose and marks Ready (it plays scheduler and kubelet), the
// PodDisruptionBudgets are the fixture's, and every eviction the plan
// lists goes through the eviction API in the plan's order. No eviction
// the plan allows may be denied; where the plan says a budget is spent,
// one more eviction (a dry run) must be denied with the API server's
// message. Between waves the ReplicaSet controller's replacements are
// bound to the new pool and marked Ready, as the plan expects.
func TestDrainOrderAgainstEvictionAPI(t *testing.T) {
	t.Parallel()
	cur, objs := loadFixture(t)
	setPool, err := plan.SetPool("win:build=10.0.26100")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(t.Context(), plan.Input{Current: cur, Model: winsupport.ForVersion(winsupport.Version{Minor: 33}), Objects: objs, Changes: []plan.Change{setPool}})
	if err != nil {
		t.Fatal(err)
	}

	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true, ControllerManager: true,
		ExtraControllerManagerFlags: []string{"--controllers=disruption-controller"}})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	if err := cp.CreateNamespace(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	// The current nodes, and the new pool's (its name from the plan's
	// create-pool step).
	nodes, _ := cur.Nodes()
	var newNodes []string
	for i := range 3 {
		n := nodes[len(nodes)-1].DeepCopy()
		n.Name = fmt.Sprintf("win-ltsc2025-%d", i)
		n.Labels[cluster.LabelWindowsBuild] = "10.0.26100"
		n.Labels[cluster.LabelHostname] = n.Name
		nodes = append(nodes, n)
		newNodes = append(newNodes, n.Name)
	}
	for _, n := range nodes {
		n.ResourceVersion = ""
		if _, err := cp.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{t: t, cp: cp, ctx: ctx, real: map[string]string{}}
	for _, o := range objs {
		switch o.Kind {
		case "PodDisruptionBudget":
			pdb, err := createPDB(ctx, cp, o)
			if err != nil {
				t.Fatal(err)
			}
			w.pdbs = append(w.pdbs, pdb)
		case "Deployment":
			w.startReplicaSet(o, rep.Before)
		}
	}
	w.waitBudgets()

	waves := 0
	for _, s := range rep.Steps {
		if s.Kind != "drain" {
			continue
		}
		if len(s.Blocked) > 0 {
			t.Fatalf("the fixture's drain is blocked: %v", s.Blocked)
		}
		waves++
		for _, e := range s.Evictions {
			w.evict(e)
		}
		w.checkSpentBudgets(s.Evictions)
		for _, e := range s.Evictions {
			if e.Replaced {
				w.replace(e.Workload, newNodes[w.placed%len(newNodes)])
				w.placed++
			}
		}
		w.waitBudgets()
	}
	if waves < 2 || w.evicted == 0 {
		t.Fatalf("%d waves, %d evictions: the fixture should take several waves", waves, w.evicted)
	}
	// Every pod on the old pool is gone.
	pods, err := cp.Client.CoreV1().Pods("shop").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Spec.NodeName, "win-") && !strings.HasPrefix(p.Spec.NodeName, "win-ltsc2025-") {
			t.Errorf("pod %s is still on the old pool's node %s", p.Name, p.Spec.NodeName)
		}
	}
	t.Logf("%d evictions in %d waves, none denied; %d denials checked where a budget was spent", w.evicted, waves, w.denials)
}

type world struct {
	t        *testing.T
	cp       *controlplane.ControlPlane
	ctx      context.Context
	pdbs     []*policyv1.PodDisruptionBudget
	selector map[string]labels.Selector // workload -> its pods
	real     map[string]string          // the plan's pod name -> the ReplicaSet's
	placed   int
	evicted  int
	denials  int
}

// startReplicaSet creates the workload as a ReplicaSet, binds its pods to
// the nodes the plan's before-simulation chose, and marks them Ready.
func (w *world) startReplicaSet(o *manifest.Object, before *simulate.Result) {
	t := w.t
	tmpl := o.Workload()
	ref := o.Kind + "/shop/" + o.Name
	var slots []simulate.PodResult
	for _, p := range before.Pods {
		if p.Workload == ref && p.Node != "" && p.StartFailure == "" {
			slots = append(slots, p)
		}
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: "shop"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(int32(len(slots))),
			Selector: &metav1.LabelSelector{MatchLabels: tmpl.Template.Labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Template.Labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := w.cp.Client.AppsV1().ReplicaSets("shop").Create(w.ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w.selector == nil {
		w.selector = map[string]labels.Selector{}
	}
	w.selector[ref] = labels.SelectorFromSet(tmpl.Template.Labels)
	for _, slot := range slots {
		name := w.bindPending(ref, slot.Node)
		w.real[slot.Pod] = name
	}
}

// bindPending waits for a pod of the workload that no node runs yet (the
// ReplicaSet controller's), binds it to node and marks it Ready.
func (w *world) bindPending(ref, node string) string {
	t := w.t
	for {
		pods, err := w.cp.Client.CoreV1().Pods("shop").List(w.ctx, metav1.ListOptions{LabelSelector: w.selector[ref].String()})
		if err != nil {
			t.Fatal(err)
		}
		var free []string
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
				free = append(free, p.Name)
			}
		}
		if len(free) > 0 {
			sort.Strings(free)
			name := free[0]
			b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
			if err := w.cp.Client.CoreV1().Pods("shop").Bind(w.ctx, b, metav1.CreateOptions{}); err != nil {
				t.Fatalf("binding %s to %s: %v", name, node, err)
			}
			pod, err := w.cp.Client.CoreV1().Pods("shop").Get(w.ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			now := metav1.Now()
			pod.Status.Phase = corev1.PodRunning
			pod.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			}
			if _, err := w.cp.Client.CoreV1().Pods("shop").UpdateStatus(w.ctx, pod, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("marking %s Ready: %v", name, err)
			}
			return name
		}
		select {
		case <-w.ctx.Done():
			t.Fatalf("no pod of %s for node %s: the ReplicaSet controller made none", ref, node)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// replace binds the workload's replacement for an evicted pod.
func (w *world) replace(ref, node string) { w.bindPending(ref, node) }

// evict evicts the plan's pod through the eviction API; a denial fails the
// test.
func (w *world) evict(e plan.Eviction) {
	name := w.real[e.Pod]
	if name == "" {
		w.t.Fatalf("the plan evicts %s, which the test did not create", e.Pod)
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}}
	if err := w.cp.Client.PolicyV1().Evictions("shop").Evict(w.ctx, ev); err != nil {
		w.t.Fatalf("evicting %s (%s, on %s; plan: budget %q allows %d): %v", e.Pod, name, e.Node, e.Budget, e.Allowed, err)
	}
	w.evicted++
	delete(w.real, e.Pod)
}

// checkSpentBudgets: where the wave's last eviction of a budget found it
// allowing one, the budget is spent, and another pod it covers that is
// still on the old pool must be refused (a dry run, so nothing changes).
func (w *world) checkSpentBudgets(evs []plan.Eviction) {
	last := map[string]plan.Eviction{}
	for _, e := range evs {
		if e.Budget != "" {
			last[e.Budget] = e
		}
	}
	for budget, e := range last {
		if e.Allowed != 1 {
			continue
		}
		var other string
		for planned, real := range w.real {
			if strings.HasPrefix(planned, strings.TrimPrefix(e.Workload, "Deployment/shop/")+"-") {
				other = real
				break
			}
		}
		if other == "" {
			continue
		}
		// The disruption controller must have seen the evictions first.
		w.waitBudgets()
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: other, Namespace: "shop"},
			DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
		err := w.cp.Client.PolicyV1().Evictions("shop").Evict(w.ctx, ev)
		if !apierrors.IsTooManyRequests(err) || !strings.Contains(err.Error(), "Cannot evict pod as it would violate the pod's disruption budget.") {
			w.t.Errorf("budget %s is spent after the plan's wave, yet evicting %s gave %v", budget, other, err)
		}
		w.denials++
	}
}

// waitBudgets waits until each budget's status counts the Ready pods it
// covers as the disruption controller sees them.
func (w *world) waitBudgets() {
	for _, pdb := range w.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			w.t.Fatal(err)
		}
		var last string
		for {
			pods, err := w.cp.Client.CoreV1().Pods("shop").List(w.ctx, metav1.ListOptions{LabelSelector: sel.String()})
			if err != nil {
				w.t.Fatal(err)
			}
			ready := 0
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
					ready++
				}
			}
			got, err := w.cp.Client.PolicyV1().PodDisruptionBudgets("shop").Get(w.ctx, pdb.Name, metav1.GetOptions{})
			if err != nil {
				w.t.Fatal(err)
			}
			if got.Status.ObservedGeneration == got.Generation && int(got.Status.CurrentHealthy) == ready && got.Status.ExpectedPods > 0 {
				break
			}
			last = fmt.Sprintf("status %+v, %d ready pods", got.Status, ready)
			select {
			case <-w.ctx.Done():
				w.t.Fatalf("budget %s never counted the pods: %s", pdb.Name, last)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
