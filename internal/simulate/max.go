package simulate

import (
	"context"
	"fmt"
)

// answerMax answers --max: for each named workload, how many more replicas
// would be scheduled and start once every input pod is placed. Each answer
// starts from that same state: the extra pods are removed again.
func (r *runner) answerMax(ctx context.Context, wls []*workload, refs []string, res *Result) error {
	for _, ref := range refs {
		matched := matchWorkloads(wls, ref)
		if len(matched) == 0 {
			return fmt.Errorf("--max %s: no such workload in the input (want Kind/name or Kind/namespace/name)", ref)
		}
		for _, wl := range matched {
			n, err := r.moreFit(ctx, wl)
			if err != nil {
				return err
			}
			if wl.daemon {
				res.Notes = append(res.Notes, fmt.Sprintf("%s is a DaemonSet: it runs one pod per node and cannot take more replicas", wl.ref))
			}
			wl.result = &WorkloadResult{MoreFit: &n}
		}
	}
	return nil
}

// moreFit adds replicas of wl until one would stay pending, be refused or
// fail to start, then takes them away again.
func (r *runner) moreFit(ctx context.Context, wl *workload) (int, error) {
	if wl.daemon || wl.invalid != "" || wl.forbidden != "" || len(wl.pod.Spec.SchedulingGates) > 0 {
		return 0, nil
	}
	record := r.s.recordFeasible
	r.s.recordFeasible = false
	defer func() { r.s.recordFeasible = record }()
	limit := 1
	for _, n := range r.s.nodes {
		limit += n.allowed
	}
	t := newTmpl(wl.sched)
	count := 0
	for i := wl.count; count < limit; i++ {
		if count%1024 == 0 {
			if err := ctx.Err(); err != nil {
				r.undo(count)
				return 0, err
			}
		}
		n := r.nextNode(t, wl)
		if n == nil {
			break
		}
		r.s.bind(t, n, wl.replicaLabelSet(i))
		if r.startFailure(wl, n) != "" {
			r.s.unbind()
			break
		}
		count++
	}
	r.undo(count)
	return count, nil
}

// nextNode is where the next replica would go, nil if nowhere.
func (r *runner) nextNode(t *tmpl, wl *workload) *node {
	if name := wl.pod.Spec.NodeName; name != "" {
		n := r.s.byName[name]
		if n == nil || kubeletAdmitNamed(wl.sched, n, r.m) != "" {
			return nil
		}
		return n
	}
	return r.s.schedule(t, nil).node
}

func (r *runner) undo(n int) {
	for range n {
		r.s.unbind()
	}
}
