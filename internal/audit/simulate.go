package audit

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/target"
)

// SimulationInput is the simulation of the live cluster (PlacedInput)
// and, when headroom is asked for, each Windows workload with no new
// replicas so --max can say how many more fit.
func SimulationInput(s *live.Snapshot, f *Facts, headroom bool) simulate.Input {
	in := live.PlacedInput(s, f.Model)
	if !headroom {
		return in
	}
	in.Replicas = map[string]int32{}
	for _, w := range headroomWorkloads(f) {
		if !w.rep {
			continue
		}
		ref := w.ref
		in.Objects = append(in.Objects, w.obj)
		in.Replicas[ref] = 0
		in.Max = append(in.Max, ref)
	}
	return in
}

func simulateLive(ctx context.Context, s *live.Snapshot, f *Facts, owners *live.Owners, set *rule.Settings, res *Result) error {
	sim, err := simulate.Run(ctx, SimulationInput(s, f, true))
	if err != nil {
		return fmt.Errorf("simulating the live cluster: %w", err)
	}
	res.Simulation = sim
	pods := map[string]*corev1.Pod{}
	for _, p := range s.Pods {
		pods["Pod/"+p.Namespace+"/"+p.Name] = p
	}
	pending, failing := set.Apply(WorkloadPending), set.Apply(WorkloadStartFailure)
	seen := map[string]bool{}
	for _, pr := range sim.Pods {
		p := pods[pr.Workload]
		if p == nil {
			continue
		}
		top := owners.Top(p)
		switch {
		case pr.Pending && pr.Message != "":
			if key := "p" + top.Ref(); pending != nil && !seen[key] {
				seen[key] = true
				res.Findings = append(res.Findings, rule.Finding{Rule: pending.ID, Severity: pending.Severity, Object: top,
					Message: fmt.Sprintf("pod %s cannot be scheduled: %s", p.Name, pr.Message), Hint: strings.Join(pr.Explanation, "; ")})
			}
		case pr.StartFailure != "" && p.Status.Phase == corev1.PodPending:
			if key := "s" + top.Ref(); failing != nil && !seen[key] {
				seen[key] = true
				res.Findings = append(res.Findings, rule.Finding{Rule: failing.ID, Severity: failing.Severity, Object: top,
					Message: fmt.Sprintf("pod %s on node %s: %s", p.Name, pr.Node, pr.StartFailure)})
			}
		}
	}
	fit := map[string]int{}
	for _, w := range sim.Workloads {
		if w.MoreFit != nil {
			fit[w.Workload] = *w.MoreFit
		}
	}
	for _, w := range headroomWorkloads(f) {
		if n, ok := fit[w.repRef]; ok {
			h := Headroom{Workload: w.ref, MoreFit: n}
			if !w.rep {
				h.SameAs = w.repRef
			}
			res.Headroom = append(res.Headroom, h)
		}
	}
	return nil
}

// headroomWorkload is a Windows workload --max is answered for; only the
// first workload of each shape (rep) is simulated.
type headroomWorkload struct {
	obj         *manifest.Object
	ref, repRef string
	rep         bool
}

// headroomWorkloads lists the Windows workloads that can take more
// replicas (not bare pods, not DaemonSets), with the representative of
// each shape.
func headroomWorkloads(f *Facts) []headroomWorkload {
	var out []headroomWorkload
	reps := map[string]string{}
	for _, w := range f.Workloads {
		if w.Facts.OS != target.Windows || w.Object.Kind == "Pod" || w.Object.Kind == "DaemonSet" {
			continue
		}
		mw := w.Object.Workload()
		if mw == nil {
			continue
		}
		ref := w.Object.Kind + "/" + w.Object.Namespace + "/" + w.Object.Name
		hw := headroomWorkload{obj: w.Object, ref: ref, repRef: ref, rep: true}
		if key := shapeKey(mw.Spec); key != "" {
			if r, ok := reps[key]; ok {
				hw.repRef, hw.rep = r, false
			} else {
				reps[key] = ref
			}
		}
		out = append(out, hw)
	}
	return out
}
