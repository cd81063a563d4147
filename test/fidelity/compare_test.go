package fidelity

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/simulate"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	const msg = "0/2 nodes are available: 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	bound := Outcome{Pod: "p0", Node: "a", Feasible: []string{"a", "b"}}
	pending := Outcome{Pod: "p0", Message: msg}
	rejected := Outcome{Pod: "p0", Rejected: true, RejectMessage: `pods "p0" is forbidden: pod rejected: RuntimeClass "x" not found`}
	w := func(p simulate.PodResult) *simulate.Result {
		p.Namespace, p.Pod = Namespace, "p0"
		return &simulate.Result{Pods: []simulate.PodResult{p}}
	}
	tests := []struct {
		name string
		real Outcome
		res  *simulate.Result
		want []string // substrings of the differences, in order
	}{
		{"same binding", bound, w(simulate.PodResult{Node: "a", Feasible: []string{"a", "b"}}), nil},
		{"same pending", pending, w(simulate.PodResult{Pending: true, Message: msg}), nil},
		{"same rejection", rejected, w(simulate.PodResult{Rejected: true, RejectMessage: rejected.RejectMessage}), nil},
		{"missing pod", bound, &simulate.Result{}, []string{"p0: winkube reported nothing"}},
		{"extra pod", bound, &simulate.Result{Pods: []simulate.PodResult{{Namespace: Namespace, Pod: "p0", Node: "a", Feasible: []string{"a", "b"}}, {Namespace: Namespace, Pod: "p9"}}},
			[]string{"p9: winkube reported a pod the case does not create"}},
		{"not rejected", rejected, w(simulate.PodResult{Node: "a"}), []string{"p0: admission: real rejected"}},
		{"rejection message", rejected, w(simulate.PodResult{Rejected: true, RejectMessage: "other"}), []string{"p0: rejection message differs"}},
		{"pending in winkube", bound, w(simulate.PodResult{Pending: true, Message: msg}), []string{"scheduling: real bound to a, winkube pending", "real node a is not among", "feasible nodes differ"}},
		{"message differs by a byte", pending, w(simulate.PodResult{Pending: true, Message: strings.TrimSuffix(msg, ".")}), []string{"FailedScheduling message differs"}},
		{"feasible sets differ", bound, w(simulate.PodResult{Node: "a", Feasible: []string{"a"}}), []string{"feasible nodes differ: real [a b], winkube [a]"}},
		{"not steered", bound, w(simulate.PodResult{Node: "b", Feasible: []string{"a", "b"}}), []string{"steered to winkube's b"}},
		{"neither bound nor pending", bound, w(simulate.PodResult{Feasible: []string{"a", "b"}}), []string{"winkube neither bound, pending nor rejected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Compare([]Outcome{tt.real}, tt.res)
			if len(got) != len(tt.want) {
				t.Fatalf("Compare = %q, want %d differences matching %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("difference %d = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
