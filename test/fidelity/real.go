package fidelity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/test/controlplane"
)

// Outcome is what happened to one pod of a case.
type Outcome struct {
	Pod           string
	Rejected      bool   // the API server refused to create it
	RejectMessage string // the API server's message
	Node          string // bound node, "" if rejected or pending
	Message       string // FailedScheduling message when pending
	Feasible      []string
}

// Cluster runs cases on one real control plane whose scheduler consults an
// [Extender].
type Cluster struct {
	CP     *controlplane.ControlPlane
	ext    *Extender
	probes int // probe pods created, for unique names
}

// StartCluster starts the control plane for a test (failing it loudly if
// that is impossible) with the extender configured, and the fidelity
// namespace created.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	ext := NewExtender()
	t.Cleanup(ext.Close)
	cp := controlplane.StartT(t, controlplane.Options{
		SchedulerConfigExtra: ext.SchedulerConfig(),
		// Opportunistic batching lets the scheduler try only a node hinted
		// by an earlier, similar pod; the extender would then see one node
		// instead of the feasible set. It changes which node is picked,
		// never which nodes are feasible or the failure messages.
		ExtraSchedulerFlags: []string{"--feature-gates=OpportunisticBatching=false"},
	})
	if err := cp.CreateNamespace(t.Context(), Namespace); err != nil {
		t.Fatalf("creating namespace %s: %v", Namespace, err)
	}
	return &Cluster{CP: cp, ext: ext}
}

// Setup empties the cluster and creates the case's nodes and
// RuntimeClasses, returning the nodes as the API server stores them (what
// the scheduler sees), once the scheduler has seen exactly those nodes.
func (c *Cluster) Setup(ctx context.Context, cs *Case) ([]*corev1.Node, error) {
	if err := c.reset(ctx); err != nil {
		return nil, err
	}
	// Barrier: the scheduler reports no nodes at all, so it has seen every
	// deletion; from here on it only learns of this case's nodes.
	if err := c.probe(ctx, func(r probeResult) bool { return r.msg == "no nodes available to schedule pods" }); err != nil {
		return nil, fmt.Errorf("waiting for the scheduler to forget the previous nodes: %w", err)
	}
	var nodes []*corev1.Node
	for _, n := range cs.Nodes {
		created, err := c.CP.CreateNode(ctx, n)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, created)
	}
	for _, rc := range cs.RuntimeClasses {
		if _, err := c.CP.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create RuntimeClass %s: %w", rc.Name, err)
		}
	}
	// Barrier: every node passes a probe's filters, so the scheduler has
	// seen each node with its status (allocatable, conditions).
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	if err := c.probe(ctx, func(r probeResult) bool { return slices.Equal(r.feasible, names) }); err != nil {
		return nil, fmt.Errorf("waiting for the scheduler to see nodes %v: %w", names, err)
	}
	return nodes, nil
}

// Run creates the case's pods one at a time, each once the previous one is
// bound or has failed scheduling. choose maps pod names to the node winkube
// bound them to; the real binding follows it when that node is feasible.
func (c *Cluster) Run(ctx context.Context, cs *Case, choose map[string]string) ([]Outcome, error) {
	choices := map[string]string{}
	for pod, node := range choose {
		choices[Namespace+"/"+pod] = node
	}
	c.ext.Choose(choices)
	var out []Outcome
	for _, p := range cs.Pods {
		o := Outcome{Pod: p.Name}
		created, err := c.CP.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		var status apierrors.APIStatus
		switch {
		case errors.As(err, &status) && (apierrors.IsInvalid(err) || apierrors.IsForbidden(err)):
			o.Rejected, o.RejectMessage = true, status.Status().Message
			out = append(out, o)
			continue
		case err != nil:
			return nil, fmt.Errorf("create pod %s: %w", p.Name, err)
		}
		o.Node, o.Message, err = c.waitScheduled(ctx, created)
		if err != nil {
			return nil, err
		}
		o.Feasible, _ = c.ext.Feasible(created.UID)
		out = append(out, o)
	}
	return out, nil
}

// reset deletes every pod, node and RuntimeClass and waits until they are
// gone. Pods go with a zero grace period: no kubelet would confirm them.
func (c *Cluster) reset(ctx context.Context) error {
	zero := int64(0)
	client := c.CP.Client
	if err := client.CoreV1().Pods(Namespace).DeleteCollection(ctx,
		metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete pods: %w", err)
	}
	if err := client.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete nodes: %w", err)
	}
	if err := client.NodeV1().RuntimeClasses().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete RuntimeClasses: %w", err)
	}
	return poll(ctx, "the cluster to be empty", func() (bool, error) {
		pods, err := client.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		rcs, err := client.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(pods.Items)+len(nodes.Items)+len(rcs.Items) == 0, nil
	})
}
