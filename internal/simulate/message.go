package simulate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/go-logr/logr"

	"github.com/winkube/winkube/internal/winsupport"
)

// Filter reasons, as kube-scheduler v1.36 words them.
const (
	reasonUnschedulable   = "node(s) were unschedulable"
	reasonNodeAffinity    = "node(s) didn't match Pod's node affinity/selector"
	reasonTaints          = "node(s) had untolerated taint(s)"
	reasonPorts           = "node(s) didn't have free ports for the requested pod ports"
	reasonTooManyPods     = "Too many pods"
	reasonSpread          = "node(s) didn't match pod topology spread constraints"
	reasonSpreadLabel     = reasonSpread + " (missing required label)"
	reasonAffinity        = "node(s) didn't match pod affinity rules"
	reasonAntiAffinity    = "node(s) didn't match pod anti-affinity rules"
	reasonExistingAnti    = "node(s) didn't satisfy existing pods anti-affinity rules"
	reasonAffinityPlugin  = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
	reasonTermsConflict   = "pod affinity terms conflict"
	reasonNoVictims       = "No preemption victims found for incoming pod"
	reasonNotHelpful      = "Preemption is not helpful for scheduling"
	reasonNoClaims        = "no new claims to deallocate"
	reasonPreemptionNever = "not eligible due to preemptionPolicy=Never."
	// schedulingGated is the PodScheduled condition the API server gives
	// a pod created with scheduling gates (pkg/registry/core/pod).
	schedulingGated = "Scheduling is blocked due to non-empty scheduling gates"
)

// status is one node's verdict, as a filter plugin returns it: reasons,
// and whether preemption could help (Unschedulable) or not
// (UnschedulableAndUnresolvable).
type status struct {
	reasons    []string
	resolvable bool
}

// Statuses of the filters with a fixed message, shared to spare
// allocations on the hot path.
var (
	statusPorts        = &status{reasons: []string{reasonPorts}, resolvable: true}
	statusSpread       = &status{reasons: []string{reasonSpread}, resolvable: true}
	statusSpreadLabel  = &status{reasons: []string{reasonSpreadLabel}}
	statusAffinity     = &status{reasons: []string{reasonAffinity}}
	statusAntiAffinity = &status{reasons: []string{reasonAntiAffinity}, resolvable: true}
	statusExistingAnti = &status{reasons: []string{reasonExistingAnti}, resolvable: true}
)

// taintReason words an untolerated taint as the model's scheduler does.
// v1.35 stopped naming the taint (kubernetes#134740, back-ported to
// v1.34 patch releases, modelled from 1.34); v1.26 to v1.33 said
// "untolerated taint {k: v}"; older releases "had taint {k: v}, that the
// pod didn't tolerate".
func taintReason(m winsupport.Model, t corev1.Taint) string {
	switch {
	case !m.V.Less(winsupport.Version{Minor: 34}):
		return reasonTaints
	case !m.V.Less(winsupport.Version{Minor: 26}):
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	return fmt.Sprintf("node(s) had taint {%s: %s}, that the pod didn't tolerate", t.Key, t.Value)
}

// histogram counts reasons over nodes.
type histogram map[string]int

func (h histogram) add(s status, n int) {
	for _, r := range s.reasons {
		h[r] += n
	}
}

// String renders the histogram as the scheduler does: "<count> <reason>"
// strings sorted as strings (so "10 x" sorts before "2 y"), joined by ", ".
func (h histogram) String() string {
	out := make([]string, 0, len(h))
	for r, n := range h {
		out = append(out, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// fitError is what the scheduler knows when no node fits a pod.
type fitError struct {
	allNodes  int
	preFilter string    // a PreFilter plugin's rejection, "" when filtering ran
	byReason  histogram // reasons per node, when filtering ran
	// preemptable counts the nodes whose rejection preemption could
	// resolve; the default preemption plugin tries them.
	preemptable     int
	preemptionNever bool
	// draState is false when a PreFilter rejection stopped the chain
	// before the DynamicResources plugin wrote its cycle state.
	draState bool
}

// message renders the FailedScheduling event message of the model's
// Kubernetes version: FitError.Error with the PostFilter plugins' message.
func (e fitError) message(m winsupport.Model) string {
	msg := fmt.Sprintf("0/%d nodes are available:", e.allNodes)
	if e.preFilter != "" {
		msg += " " + e.preFilter + "."
	} else if len(e.byReason) > 0 {
		msg += " " + e.byReason.String() + "."
	}
	if post := e.postFilter(m); post != "" {
		msg += " " + post
	}
	return msg
}

// postFilter is the PostFilter plugins' message: DynamicResources (from
// 1.34, when DRA went GA and joined the default profile) then
// DefaultPreemption. Before 1.30 the preemption message gained a second
// period (kubernetes#123301); before 1.22 there was none.
func (e fitError) postFilter(m winsupport.Model) string {
	if m.V.Less(winsupport.Version{Minor: 22}) {
		return ""
	}
	var parts []string
	if !m.V.Less(winsupport.Version{Minor: 34}) {
		if !e.draState {
			return "not found" // DynamicResources.PostFilter cannot read its state: an error ends the PostFilter chain
		}
		parts = append(parts, reasonNoClaims)
	}
	parts = append(parts, "preemption: "+e.preemption())
	msg := strings.Join(parts, ", ")
	if m.V.Less(winsupport.Version{Minor: 30}) {
		msg += "."
	}
	return msg
}

// preemption is DefaultPreemption's message. winkube gives every pod the
// same priority, so no node has a victim: the nodes preemption could help
// report "No preemption victims found", the others "not helpful".
func (e fitError) preemption() string {
	if e.preemptionNever {
		return reasonPreemptionNever
	}
	h := histogram{}
	if e.preemptable > 0 {
		h[reasonNoVictims] = e.preemptable
	}
	if rest := e.allNodes - e.preemptable; rest > 0 {
		h[reasonNotHelpful] = rest
	}
	return fmt.Sprintf("0/%d nodes are available: %s.", e.allNodes, h.String())
}

// quiet is the logger handed to the Kubernetes helpers that want one.
var quiet = logr.Discard()
