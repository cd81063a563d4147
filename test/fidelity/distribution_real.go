package fidelity

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/test/controlplane"
)

// PlacementCluster runs placement cases on a real control plane whose
// kube-controller-manager creates the workloads' pods and whose
// kube-scheduler runs the default profile exactly as shipped: no extender
// (which would change tie-breaking and turn off opportunistic batching) and
// no feature gate changed.
type PlacementCluster struct {
	CP *controlplane.ControlPlane
	// FreshScheduler restarts kube-scheduler before each run. Above 100
	// nodes the scheduler stops its node search once it has found enough
	// feasible nodes and the next pod's search starts where that one
	// stopped (nextStartNodeIndex), which a run leaves wherever its last
	// pod did; winkube predicts a run from a scheduler that has placed
	// nothing yet.
	FreshScheduler bool
	probes         int
}

// StartPlacementCluster starts that control plane for a test, failing it
// loudly if that is impossible, with the placement namespace created. If
// schedulerLog is not empty, kube-scheduler runs with --v=10, which logs
// every plugin's score of every node for every pod ("Plugin scored node
// for pod") and the final scores, and its log is copied to that file when
// the test ends. A parallelism above 0 sets the KubeSchedulerConfiguration's
// parallelism (default 16): with 1, the Filter extension point checks the
// nodes one by one from nextStartNodeIndex, so the feasible nodes reach
// the score heap in that order and the scheduler is deterministic; with
// more, the order is whichever check finishes first (schedule_one.go
// findNodesThatPassFilters), which is what ties then depend on.
func StartPlacementCluster(t testing.TB, schedulerLog string, parallelism int) *PlacementCluster {
	t.Helper()
	opts := controlplane.Options{ControllerManager: true}
	if parallelism > 0 {
		opts.SchedulerConfigExtra = fmt.Sprintf("parallelism: %d\n", parallelism)
	}
	if schedulerLog != "" {
		opts.ExtraSchedulerFlags = []string{"--v=10"}
	}
	cp := controlplane.StartT(t, opts)
	if schedulerLog != "" {
		// Registered after StartT's cleanup, so it runs before the
		// control plane's directory is removed.
		t.Cleanup(func() {
			data, err := os.ReadFile(cp.LogPath("kube-scheduler"))
			if err == nil {
				err = os.WriteFile(schedulerLog, data, 0o644)
			}
			if err != nil {
				t.Errorf("copying the kube-scheduler log to %s: %v", schedulerLog, err)
				return
			}
			t.Logf("kube-scheduler log (--v=10) copied to %s", schedulerLog)
		})
	}
	if err := cp.CreateNamespace(t.Context(), PlacementNamespace); err != nil {
		t.Fatalf("creating namespace %s: %v", PlacementNamespace, err)
	}
	return &PlacementCluster{CP: cp}
}

// RealPlacement is where the real scheduler put one case's pods.
type RealPlacement struct {
	// Nodes are the case's nodes as the API server stored them, in
	// creation order: what winkube is given.
	Nodes []*corev1.Node
	// Workloads are the workloads in creation order.
	Workloads []RealWorkload
}

// RealWorkload is where one workload's replicas went.
type RealWorkload struct {
	Name     string         // the workload's name
	Replicas int            // pods its controller created
	Nodes    map[string]int // node name -> bound pods
	Pending  int            // pods the scheduler reported unschedulable
	Took     time.Duration  // from creating the Deployment to its last pod's outcome
}

// Run empties the cluster, creates the case's nodes in order, waits until
// the scheduler has seen each of them with its status and no pods, creates
// the existing pods, then each workload in turn, waiting until every pod
// of one is bound or reported unschedulable before creating the next.
func (c *PlacementCluster) Run(ctx context.Context, pc *PlacementCase) (*RealPlacement, error) {
	if err := c.reset(ctx); err != nil {
		return nil, err
	}
	if c.FreshScheduler {
		if err := c.CP.RestartScheduler(ctx); err != nil {
			return nil, err
		}
	}
	out := &RealPlacement{}
	for _, n := range pc.Nodes {
		created, err := c.CP.CreateNode(ctx, n)
		if err != nil {
			return nil, err
		}
		out.Nodes = append(out.Nodes, created)
	}
	if err := c.barrier(ctx, out.Nodes); err != nil {
		return nil, err
	}
	client := c.CP.Client
	for _, p := range pc.Existing {
		if _, err := client.CoreV1().Pods(PlacementNamespace).Create(ctx, p.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create existing pod %s: %w", p.Name, err)
		}
	}
	for _, wl := range pc.Workloads {
		start := time.Now()
		if err := createWorkload(ctx, client, wl); err != nil {
			return nil, err
		}
		w, err := c.waitWorkload(ctx, wl)
		if err != nil {
			return nil, err
		}
		w.Took = time.Since(start)
		out.Workloads = append(out.Workloads, *w)
	}
	return out, nil
}

// waitWorkload waits until the workload's controller has created all its
// pods (a DaemonSet: as many as its status says it should run) and each is
// bound or has PodScheduled=False, and counts them.
func (c *PlacementCluster) waitWorkload(ctx context.Context, wl Workload) (*RealWorkload, error) {
	name, kind := wl.GetName(), kindOf(wl)
	sel := labels.SelectorFromSet(templateOf(wl).Labels)
	var w *RealWorkload
	replicas := replicasOf(wl)
	err := poll(ctx, "the pods of "+kind+" "+name, func() (bool, error) {
		for _, component := range []string{"kube-controller-manager", "kube-scheduler"} {
			if err := c.CP.Exited(component); err != nil {
				return false, err
			}
		}
		if kind == "DaemonSet" {
			ds, err := c.CP.Client.AppsV1().DaemonSets(PlacementNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if ds.Status.ObservedGeneration < ds.Generation {
				return false, nil
			}
			replicas = int(ds.Status.DesiredNumberScheduled)
		}
		pods, err := c.CP.Client.CoreV1().Pods(PlacementNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return false, err
		}
		w = &RealWorkload{Name: name, Replicas: len(pods.Items), Nodes: map[string]int{}}
		for _, p := range pods.Items {
			switch {
			case p.Spec.NodeName != "":
				w.Nodes[p.Spec.NodeName]++
			case unschedulable(&p):
				w.Pending++
			default:
				return false, nil
			}
		}
		if len(pods.Items) > replicas {
			return false, fmt.Errorf("%s %s has %d pods, more than its %d replicas", kind, name, len(pods.Items), replicas)
		}
		return len(pods.Items) == replicas, nil
	})
	if err != nil && w != nil {
		err = fmt.Errorf("%w (last seen: %d of %d pods, bound %v, %d pending)", err, w.Replicas, replicas, w.Nodes, w.Pending)
	}
	return w, err
}

func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

// barrier waits until the scheduler knows every node with its status and
// without pods: for each node, a probe pod pinned to it by hostname that
// tolerates everything and asks for all of its allocatable CPU and memory
// must be bound. The probes are then deleted; the scheduler learns of that
// from the pod watch before any later pod, so they leave no trace.
func (c *PlacementCluster) barrier(ctx context.Context, nodes []*corev1.Node) error {
	client := c.CP.Client.CoreV1().Pods(PlacementNamespace)
	var names []string
	for _, n := range nodes {
		c.probes++
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%d", probePrefix, c.probes), Namespace: PlacementNamespace,
				Labels: map[string]string{"winkube.io/probe": "true"}},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{corev1.LabelHostname: n.Labels[corev1.LabelHostname]},
				Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: n.Status.Allocatable[corev1.ResourceCPU], corev1.ResourceMemory: n.Status.Allocatable[corev1.ResourceMemory]}}}},
			},
		}
		if _, err := client.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create probe pod for node %s: %w", n.Name, err)
		}
		names = append(names, p.Name)
	}
	// A probe the scheduler found no room for is retried on the node's
	// status update, so waiting for all of them to be bound is enough.
	err := poll(ctx, "probe pods to be bound to their empty nodes", func() (bool, error) {
		pods, err := client.List(ctx, metav1.ListOptions{LabelSelector: "winkube.io/probe=true"})
		if err != nil {
			return false, err
		}
		bound := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		return bound == len(names), nil
	})
	if err != nil {
		return err
	}
	zero := int64(0)
	for _, name := range names {
		if err := client.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			return fmt.Errorf("delete probe pod %s: %w", name, err)
		}
	}
	return c.schedulerCacheEmpty(ctx)
}

// schedulerCacheEmpty waits until kube-scheduler's cache holds no pod: a
// probe (or an earlier run's pod) it has not yet seen deleted would fill
// its node for the next case's first pods. The cache_size gauge is
// refreshed every second (the cache's cleanupAssumedPods loop), so only
// readings taken a second after the deletions are trusted.
func (c *PlacementCluster) schedulerCacheEmpty(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(1100 * time.Millisecond):
	}
	return poll(ctx, "kube-scheduler's cache to hold no pod", func() (bool, error) {
		for _, typ := range []string{`type="pods"`, `type="assumed_pods"`} {
			v, err := c.CP.SchedulerMetric(ctx, "scheduler_cache_size", typ)
			if err != nil || v != 0 {
				return false, err
			}
		}
		return true, nil
	})
}

// reset deletes every workload, ReplicaSet, ControllerRevision, pod and
// node, in that order (there is no garbage collector: a ReplicaSet left
// alive would recreate its pods), and waits until they are gone. Job pods
// carry the Job controller's tracking finalizer, which it removes only
// while it tracks them: the reset removes what is left.
func (c *PlacementCluster) reset(ctx context.Context) error {
	zero := int64(0)
	client := c.CP.Client
	all := metav1.ListOptions{}
	apps, batch := client.AppsV1(), client.BatchV1()
	ns := PlacementNamespace
	// The kinds to delete, in order; count is nil for those left over
	// only until their owners go.
	kinds := []struct {
		what  string
		del   func(context.Context, metav1.DeleteOptions, metav1.ListOptions) error
		count func() (int, error)
	}{
		{"Deployments", apps.Deployments(ns).DeleteCollection, func() (int, error) { return listLen(ctx, apps.Deployments(ns).List) }},
		{"DaemonSets", apps.DaemonSets(ns).DeleteCollection, func() (int, error) { return listLen(ctx, apps.DaemonSets(ns).List) }},
		{"StatefulSets", apps.StatefulSets(ns).DeleteCollection, func() (int, error) { return listLen(ctx, apps.StatefulSets(ns).List) }},
		{"Jobs", batch.Jobs(ns).DeleteCollection, func() (int, error) { return listLen(ctx, batch.Jobs(ns).List) }},
		{"ReplicaSets", apps.ReplicaSets(ns).DeleteCollection, func() (int, error) { return listLen(ctx, apps.ReplicaSets(ns).List) }},
		{"ControllerRevisions", apps.ControllerRevisions(ns).DeleteCollection, nil},
	}
	deleteWorkloads := func() error {
		for _, k := range kinds {
			// Background: the object goes at once. Orphan (the Jobs'
			// default) and Foreground leave a finalizer for the garbage
			// collector, which does not run; the pods are deleted below.
			background := metav1.DeletePropagationBackground
			if err := k.del(ctx, metav1.DeleteOptions{PropagationPolicy: &background}, all); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete %s: %w", k.what, err)
			}
		}
		return nil
	}
	if err := deleteWorkloads(); err != nil {
		return err
	}
	return poll(ctx, "the placement cluster to be empty", func() (bool, error) {
		// A ReplicaSet the Deployment controller created just before its
		// Deployment went is deleted here too.
		for _, k := range kinds {
			if k.count == nil {
				continue
			}
			if n, err := k.count(); err != nil || n > 0 {
				if err != nil {
					return false, err
				}
				return false, deleteWorkloads()
			}
		}
		pods, err := client.CoreV1().Pods(PlacementNamespace).List(ctx, all)
		if err != nil {
			return false, err
		}
		if len(pods.Items) > 0 {
			for _, p := range pods.Items {
				if len(p.Finalizers) == 0 {
					continue
				}
				patch := []byte(`{"metadata":{"finalizers":null}}`)
				if _, err := client.CoreV1().Pods(PlacementNamespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("remove the finalizers of pod %s: %w", p.Name, err)
				}
			}
			err := client.CoreV1().Pods(PlacementNamespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, all)
			return false, err
		}
		nodes, err := client.CoreV1().Nodes().List(ctx, all)
		if err != nil {
			return false, err
		}
		if len(nodes.Items) > 0 {
			err := client.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, all)
			return false, err
		}
		return true, nil
	})
}

// String renders the per-node counts of each workload, for the report.
func (rp *RealPlacement) String() string {
	var b strings.Builder
	for _, w := range rp.Workloads {
		fmt.Fprintf(&b, "%s:", w.Name)
		for _, n := range slices.Sorted(maps.Keys(w.Nodes)) {
			fmt.Fprintf(&b, " %s=%d", n, w.Nodes[n])
		}
		if w.Pending > 0 {
			fmt.Fprintf(&b, " pending=%d", w.Pending)
		}
		b.WriteString("; ")
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// listLen lists one kind and counts the items.
func listLen[L runtime.Object](ctx context.Context, list func(context.Context, metav1.ListOptions) (L, error)) (int, error) {
	l, err := list(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	return meta.LenList(l), nil
}
