package fidelity

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// probePrefix names the throw-away pods that [Cluster.probe] creates.
const probePrefix = "probe-"

func isProbe(p *corev1.Pod) bool {
	return p.Namespace == Namespace && strings.HasPrefix(p.Name, probePrefix)
}

// probeResult is what the scheduler did with a probe pod: its failure
// message and, if it asked the extender, the nodes that passed every
// filter.
type probeResult struct {
	msg      string
	feasible []string
	asked    bool
}

// probe creates throw-away pods until the scheduler's answer for one
// satisfies ok. A probe tolerates every taint and asks for almost nothing,
// so every node the scheduler knows with its status passes its filters;
// the extender records those nodes and then filters them all out, so a
// probe never binds. The scheduler receives pod and node events in order
// per kind, so an answer about a probe also proves it has processed every
// pod event before it.
func (c *Cluster) probe(ctx context.Context, ok func(probeResult) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last probeResult
	for {
		c.probes++
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%d", probePrefix, c.probes), Namespace: Namespace},
			Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m")}}}},
			},
		}
		created, err := c.CP.Client.CoreV1().Pods(Namespace).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create probe pod: %w", err)
		}
		node, msg, err := c.waitScheduled(ctx, created)
		if err != nil {
			return fmt.Errorf("%w (last probe: %+v)", err, last)
		}
		zero := int64(0)
		if err := c.CP.Client.CoreV1().Pods(Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			return fmt.Errorf("delete probe pod: %w", err)
		}
		if node != "" {
			return fmt.Errorf("probe pod %s was bound to %s; the extender should have filtered out every node", p.Name, node)
		}
		last = probeResult{msg: msg}
		last.feasible, last.asked = c.ext.Feasible(created.UID)
		if ok(last) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last probe: %+v)", ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// poll calls done every 20ms until it reports true or fails, or two minutes pass.
func poll(ctx context.Context, what string, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		ok, err := done()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitScheduled waits, by watching the pod from the version its creation
// returned, until it is bound (returning the node) or the scheduler has set
// PodScheduled=False (returning the message). It is the harness's
// WaitForPodScheduled without the polling delay, which would dominate the
// test's run time; if the watch ends early, it falls back to that.
func (c *Cluster) waitScheduled(ctx context.Context, created *corev1.Pod) (node, msg string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	w, err := c.CP.Client.CoreV1().Pods(created.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:   "metadata.name=" + created.Name,
		ResourceVersion: created.ResourceVersion,
	})
	if err != nil {
		return c.CP.WaitForPodScheduled(ctx, created.Namespace, created.Name)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || p.UID != created.UID {
			continue
		}
		if p.Spec.NodeName != "" {
			return p.Spec.NodeName, "", nil
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Message != "" {
				return "", cond.Message, nil
			}
		}
	}
	return c.CP.WaitForPodScheduled(ctx, created.Namespace, created.Name)
}
