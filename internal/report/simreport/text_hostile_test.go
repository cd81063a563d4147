package simreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/simulate"
)

// TestTextNeutralisesControls: node, pool and workload names can come
// from `kubectl get nodes -o yaml` output; escape sequences in them reach
// the terminal as visible text.
func TestTextNeutralisesControls(t *testing.T) {
	const h = "n\x1b]52;c;aGk=\x07\x1b[2J\u009b1m\r\nforged"
	r := &simulate.Result{
		Workloads: []simulate.WorkloadResult{{Workload: h, Replicas: 2, Placed: []simulate.PoolCount{{Pool: h, Count: 1}},
			Nodes:   []simulate.NodeCount{{Node: h, Count: 1, Min: 1, Max: 1}, {Node: h + "2", Count: 1, Min: 1, Max: 1}},
			Pending: 1, NotModelled: []string{h}}},
		Pods: []simulate.PodResult{{Workload: h, Pod: h, Pending: true, Message: h, Explanation: []string{h}},
			{Workload: h, Pod: h, Rejected: true, RejectMessage: h}},
		Pools: []simulate.PoolUsage{{Pool: h, OS: h, Nodes: 1}},
		Notes: []string{h},
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07\r\u009b") || strings.Contains(out, "\nforged") {
		t.Errorf("text output carries a control character:\n%q", out)
	}
}
