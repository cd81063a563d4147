package fidelity

import (
	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/simulate"
)

// Compare lists every way winkube's result differs from what the real
// control plane did with the same pods, one line per difference, prefixed
// with the pod's name. Empty means they agree.
func Compare(real []Outcome, res *simulate.Result) []string {
	byName := map[string]*simulate.PodResult{}
	var diffs []string
	for i := range res.Pods {
		p := &res.Pods[i]
		if p.Namespace != Namespace || byName[p.Pod] != nil {
			diffs = append(diffs, fmt.Sprintf("%s/%s: winkube reported a pod the case does not create (or twice)", p.Namespace, p.Pod))
			continue
		}
		byName[p.Pod] = p
	}
	for _, r := range real {
		w := byName[r.Pod]
		delete(byName, r.Pod)
		if w == nil {
			diffs = append(diffs, r.Pod+": winkube reported nothing for this pod")
			continue
		}
		for _, d := range comparePod(r, w) {
			diffs = append(diffs, r.Pod+": "+d)
		}
	}
	for name := range byName {
		diffs = append(diffs, name+": winkube reported a pod the case does not create")
	}
	return diffs
}

func comparePod(r Outcome, w *simulate.PodResult) []string {
	if r.Rejected != w.Rejected {
		return []string{fmt.Sprintf("admission: real %s, winkube %s", describeReal(r), describeWinkube(w))}
	}
	if r.Rejected {
		if r.RejectMessage != w.RejectMessage {
			return []string{fmt.Sprintf("rejection message differs:\n    real:    %q\n    winkube: %q", r.RejectMessage, w.RejectMessage)}
		}
		return nil
	}
	var diffs []string
	if (r.Node != "") != (w.Node != "") || w.Pending != (w.Node == "") {
		diffs = append(diffs, fmt.Sprintf("scheduling: real %s, winkube %s", describeReal(r), describeWinkube(w)))
	} else if r.Node == "" && r.Message != w.Message {
		diffs = append(diffs, fmt.Sprintf("FailedScheduling message differs:\n    real:    %q\n    winkube: %q", r.Message, w.Message))
	}
	if r.Node != "" && !slices.Contains(w.Feasible, r.Node) {
		diffs = append(diffs, fmt.Sprintf("real node %s is not among winkube's feasible nodes %v", r.Node, w.Feasible))
	}
	if !slices.Equal(r.Feasible, w.Feasible) {
		diffs = append(diffs, fmt.Sprintf("feasible nodes differ: real %v, winkube %v", r.Feasible, w.Feasible))
	}
	if r.Node != "" && w.Node != "" && r.Node != w.Node && slices.Contains(r.Feasible, w.Node) {
		// The extender binds to winkube's node whenever it is feasible.
		diffs = append(diffs, fmt.Sprintf("bound to %s, but the real scheduler was steered to winkube's %s", r.Node, w.Node))
	}
	return diffs
}

func describeReal(r Outcome) string {
	switch {
	case r.Rejected:
		return fmt.Sprintf("rejected (%q)", r.RejectMessage)
	case r.Node != "":
		return "bound to " + r.Node
	}
	return fmt.Sprintf("pending (%q)", r.Message)
}

func describeWinkube(w *simulate.PodResult) string {
	switch {
	case w.Rejected:
		return fmt.Sprintf("rejected (%q)", w.RejectMessage)
	case w.Node != "":
		return "bound to " + w.Node
	case w.Pending:
		return fmt.Sprintf("pending (%q)", w.Message)
	}
	return "neither bound, pending nor rejected"
}

// summary is a one-line account of an outcome for fixture headers.
func (r Outcome) summary() string {
	s := describeReal(r)
	if len(r.Feasible) > 0 {
		s += "; feasible " + strings.Join(r.Feasible, ", ")
	}
	return s
}
