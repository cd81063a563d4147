package simulate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

func version(minor int) winsupport.Model {
	return winsupport.ForVersion(winsupport.Version{Minor: minor})
}

func TestFitErrorMessage(t *testing.T) {
	t.Parallel()
	hybrid := histogram{reasonNodeAffinity: 2, reasonTaints: 3}
	tests := []struct {
		name  string
		model winsupport.Model
		err   fitError
		want  string
	}{
		{
			name:  "brief example, v1.36",
			model: version(36),
			err:   fitError{allNodes: 5, byReason: hybrid, draState: true},
			want:  "0/5 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
		},
		{
			name:  "nodes preemption could help",
			model: version(36),
			err:   fitError{allNodes: 5, byReason: histogram{"Insufficient cpu": 3, reasonTaints: 2}, preemptable: 3, draState: true},
			want:  "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu. no new claims to deallocate, preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
		},
		{
			name:  "counts sort as strings",
			model: version(36),
			err:   fitError{allNodes: 12, byReason: histogram{reasonTaints: 2, reasonNodeAffinity: 10}, draState: true},
			want:  "0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.",
		},
		{
			name:  "preemptionPolicy Never",
			model: version(36),
			err:   fitError{allNodes: 3, byReason: histogram{"Insufficient memory": 3}, preemptable: 3, preemptionNever: true, draState: true},
			want:  "0/3 nodes are available: 3 Insufficient memory. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:  "PreFilter rejection before DynamicResources ran",
			model: version(36),
			err:   fitError{allNodes: 5, preFilter: reasonTermsConflict},
			want:  "0/5 nodes are available: pod affinity terms conflict. not found",
		},
		{
			name:  "v1.33 has no DynamicResources message",
			model: version(33),
			err:   fitError{allNodes: 5, byReason: histogram{reasonNodeAffinity: 5}, draState: true},
			want:  "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
		},
		{
			name:  "v1.29 doubles the final period",
			model: version(29),
			err:   fitError{allNodes: 1, byReason: histogram{"node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }": 1}, draState: true},
			want:  "0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling..",
		},
		{
			name:  "v1.21 has no preemption message",
			model: version(21),
			err:   fitError{allNodes: 2, byReason: histogram{reasonNodeAffinity: 2}, draState: true},
			want:  "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.message(tt.model); got != tt.want {
				t.Errorf("message:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTaintReasonByVersion(t *testing.T) {
	t.Parallel()
	taint := corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		minor int
		want  string
	}{
		{36, "node(s) had untolerated taint(s)"},
		{34, "node(s) had untolerated taint(s)"},
		{33, "node(s) had untolerated taint {os: windows}"},
		{26, "node(s) had untolerated taint {os: windows}"},
		{25, "node(s) had taint {os: windows}, that the pod didn't tolerate"},
	}
	for _, tt := range tests {
		if got := taintReason(version(tt.minor), taint); got != tt.want {
			t.Errorf("1.%d: got %q, want %q", tt.minor, got, tt.want)
		}
	}
}
