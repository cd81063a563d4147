package doctor

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/live"
)

// Evidence is one quoted fact behind a diagnosis.
type Evidence struct {
	// Source is event, status, node, lint or simulate.
	Source    string     `json:"source"`
	Reason    string     `json:"reason,omitempty"`
	Message   string     `json:"message"`
	Count     int32      `json:"count,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
	Container string     `json:"container,omitempty"`
	// sandbox marks an event about the pod sandbox rather than a
	// container.
	sandbox bool
}

func fromEvent(e live.Event) Evidence {
	t := e.Last
	ev := Evidence{Source: "event", Reason: e.Reason, Message: e.Message, Count: e.Count, Time: &t, sandbox: e.Reason == "FailedCreatePodSandBox"}
	if e.Object.FieldPath != "" {
		ev.Container = containerOf(e.Object.FieldPath)
	}
	return ev
}

// containerOf reads "spec.containers{web}" as web.
func containerOf(fieldPath string) string {
	var name string
	for i := 0; i < len(fieldPath); i++ {
		if fieldPath[i] == '{' {
			name = fieldPath[i+1:]
			if j := len(name) - 1; j >= 0 && name[j] == '}' {
				name = name[:j]
			}
			return name
		}
	}
	return ""
}

// statusEvidence quotes the pod's own status: its reason and message,
// the PodScheduled condition, and each container's waiting or
// terminated state.
func statusEvidence(p *corev1.Pod) []Evidence {
	var out []Evidence
	if p.Status.Reason != "" || p.Status.Message != "" {
		out = append(out, Evidence{Source: "status", Reason: p.Status.Reason, Message: p.Status.Message})
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
			t := c.LastTransitionTime.Time
			out = append(out, Evidence{Source: "status", Reason: c.Reason, Message: c.Message, Time: &t})
		}
	}
	for _, cs := range allStatuses(p) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
			out = append(out, Evidence{Source: "status", Reason: w.Reason, Message: w.Message, Container: cs.Name})
		}
		for _, t := range []*corev1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
			if t == nil || (t.ExitCode == 0 && t.Reason != "OOMKilled") {
				continue
			}
			at := t.FinishedAt.Time
			msg := fmt.Sprintf("terminated with exit code %d", t.ExitCode)
			if t.Message != "" {
				msg += ": " + t.Message
			}
			out = append(out, Evidence{Source: "status", Reason: t.Reason, Message: msg, Count: cs.RestartCount, Time: &at, Container: cs.Name})
		}
	}
	return out
}
