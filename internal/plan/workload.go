package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
)

// Verdicts of a workload.
const (
	Unchanged = "unchanged" // same pods on the same pools
	Moves     = "moves"     // as many ready, on other pools
	Fixed     = "fixed"     // more ready than before
	Degraded  = "degraded"  // fewer ready, some left
	Breaks    = "breaks"    // none ready where some were
	AtRisk    = "at-risk"   // as many ready, but a rule the target raises is new
)

// Workload is what the change does to one workload.
type Workload struct {
	Workload string  `json:"workload"` // Kind/namespace/name
	File     string  `json:"file,omitempty"`
	Line     int     `json:"line,omitempty"`
	Verdict  string  `json:"verdict"`
	Before   State   `json:"before"`
	After    State   `json:"after"`
	Causes   []Cause `json:"causes,omitempty"`
}

// State is a workload's pods in one cluster.
type State struct {
	Status   string               `json:"status"` // scheduled, pending, refused, failing or none
	Replicas int                  `json:"replicas"`
	Ready    int                  `json:"ready"` // bound and starting
	Pools    []simulate.PoolCount `json:"pools,omitempty"`
	Pending  int                  `json:"pending,omitempty"`
	Refused  int                  `json:"refused,omitempty"`
	Failing  int                  `json:"failing,omitempty"`
	Message  string               `json:"message,omitempty"` // the first non-ready pod's message, verbatim
}

// Cause is why a workload's state changes: a lint rule's finding that
// only the target raises (Kind "rule", ID the rule ID), the runtime's
// message for a pod that no longer runs (Kind "runtime", ID the
// Kubernetes reason the message starts with or the event reason), or the
// plan's own observation (Kind "plan": moved, capacity-lost).
type Cause struct {
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

func stateOf(w simulate.WorkloadResult) State {
	s := State{Replicas: w.Replicas, Pools: w.Placed, Pending: w.Pending, Refused: w.Rejected, Failing: w.StartFailures}
	for _, p := range w.Placed {
		s.Ready += p.Count
	}
	s.Ready -= w.StartFailures
	switch {
	case w.Rejected > 0:
		s.Status, s.Message = "refused", w.RejectMessage
	case w.StartFailures > 0:
		s.Status, s.Message = "failing", w.StartFailure
	case w.Pending > 0:
		s.Status, s.Message = "pending", w.PendingMessage
	case w.Replicas == 0:
		s.Status = "none"
	default:
		s.Status = "scheduled"
	}
	return s
}

// compare pairs the workloads of the two simulations (the same objects,
// so the same order) and says what changed and why.
func compare(before, after *simulate.Result, found map[string][]rule.Finding) []Workload {
	prev := make(map[string]simulate.WorkloadResult, len(before.Workloads))
	for _, w := range before.Workloads {
		prev[w.Workload] = w
	}
	out := make([]Workload, 0, len(after.Workloads))
	for _, a := range after.Workloads {
		b := prev[a.Workload]
		w := Workload{Workload: a.Workload, File: a.File, Line: a.Line, Before: stateOf(b), After: stateOf(a)}
		w.Causes = runtimeCauses(b, a)
		for _, f := range found[a.Workload] {
			w.Causes = append(w.Causes, Cause{Kind: "rule", ID: f.Rule, Severity: f.Severity.String(), Message: f.Message, Hint: f.Hint})
		}
		w.Verdict = verdict(w)
		w.Causes = append(w.Causes, planCauses(w)...)
		out = append(out, w)
	}
	return out
}

func verdict(w Workload) string {
	b, a := w.Before, w.After
	switch {
	case a.Ready < b.Ready && a.Ready == 0:
		return Breaks
	case a.Ready < b.Ready:
		return Degraded
	case a.Ready > b.Ready:
		return Fixed
	case !slices.Equal(b.Pools, a.Pools):
		return Moves
	}
	for _, c := range w.Causes {
		if c.Kind == "rule" && c.Severity == "error" {
			return AtRisk
		}
	}
	return Unchanged
}

// runtimeCauses are the after-state's messages that the before-state did
// not have: the API server's refusal, the scheduler's FailedScheduling,
// the kubelet's start failure, each verbatim.
func runtimeCauses(b, a simulate.WorkloadResult) []Cause {
	var out []Cause
	if a.Rejected > 0 && a.RejectMessage != b.RejectMessage {
		out = append(out, Cause{Kind: "runtime", ID: "FailedCreate", Severity: "error", Message: a.RejectMessage})
	}
	if a.Pending > 0 && (a.PendingMessage != b.PendingMessage || a.Pending > b.Pending) {
		c := Cause{Kind: "runtime", ID: "FailedScheduling", Severity: "error", Message: a.PendingMessage}
		if len(a.Explanation) > 0 {
			c.Hint = strings.Join(a.Explanation, "; ")
		}
		out = append(out, c)
	}
	if a.StartFailures > 0 && a.StartFailure != b.StartFailure {
		out = append(out, Cause{Kind: "runtime", ID: RuntimeReason(a.StartFailure), Severity: "error", Message: a.StartFailure})
	}
	return out
}

// RuntimeReason is the Kubernetes reason a simulator start-failure
// message starts with (ErrImagePull, CreateContainerError,
// FailedCreatePodSandBox, PodOSNotSupported, ...).
func RuntimeReason(msg string) string {
	reason, _, ok := strings.Cut(msg, ":")
	if !ok || strings.ContainsAny(reason, " \"") {
		return "FailedStart"
	}
	return reason
}

// planCauses are the plan's own observations: pods moving between pools
// and replicas lost.
func planCauses(w Workload) []Cause {
	var out []Cause
	b, a := w.Before, w.After
	if a.Ready < b.Ready {
		out = append(out, Cause{Kind: "plan", ID: "capacity-lost", Severity: "error",
			Message: fmt.Sprintf("%d of %d ready replicas are lost (before %d ready, after %d)", b.Ready-a.Ready, b.Ready, b.Ready, a.Ready)})
	}
	if !slices.Equal(b.Pools, a.Pools) && a.Ready > 0 && b.Ready > 0 {
		out = append(out, Cause{Kind: "plan", ID: "moved", Severity: "info",
			Message: fmt.Sprintf("pods move from %s to %s", poolsText(b.Pools), poolsText(a.Pools))})
	}
	return out
}

func poolsText(ps []simulate.PoolCount) string {
	if len(ps) == 0 {
		return "no pool"
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s (%d)", p.Pool, p.Count))
	}
	return strings.Join(parts, ", ")
}

// newFindings are the findings of the target run that the current run
// did not have, by workload (Kind/namespace/name).
func newFindings(before, after []rule.Finding) map[string][]rule.Finding {
	key := func(f rule.Finding) string {
		return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", f.Rule, f.File, f.Line, f.Path, f.Message)
	}
	seen := make(map[string]bool, len(before))
	for _, f := range before {
		seen[key(f)] = true
	}
	out := map[string][]rule.Finding{}
	for _, f := range after {
		if f.Suppressed || seen[key(f)] || f.Object == nil {
			continue
		}
		ns := f.Object.Namespace
		if ns == "" {
			ns = "default"
		}
		ref := f.Object.Kind + "/" + ns + "/" + f.Object.Name
		out[ref] = append(out[ref], f)
	}
	return out
}

func summarise(ws []Workload) Summary {
	s := Summary{Workloads: len(ws)}
	for _, w := range ws {
		s.ReplicasLost += max(w.Before.Ready-w.After.Ready, 0)
		switch w.Verdict {
		case Unchanged:
			s.Unchanged++
		case Moves:
			s.Moves++
		case Fixed:
			s.Fixed++
		case Degraded:
			s.Degraded++
		case Breaks:
			s.Breaks++
		case AtRisk:
			s.AtRisk++
		}
	}
	return s
}
