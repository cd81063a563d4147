package fidelity

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/simulate"
)

func TestComparePlacement(t *testing.T) {
	t.Parallel()
	pc := IssueReproduction()
	pc.Workloads = pc.Workloads[:1] // web, 30 Linux replicas
	var nodes []*corev1.Node
	for _, n := range pc.Nodes {
		nodes = append(nodes, n)
	}
	const web = "Deployment/placement/web"
	result := func(pending int, counts ...int) *simulate.Result {
		w := simulate.WorkloadResult{Workload: web, Replicas: 30, Pending: pending}
		for i, c := range counts {
			if c > 0 {
				w.Nodes = append(w.Nodes, simulate.NodeCount{Node: nodes[i].Name, Count: c})
			}
		}
		return &simulate.Result{Workloads: []simulate.WorkloadResult{w}}
	}
	realRun := func(pending int, counts ...int) *RealPlacement {
		w := RealWorkload{Name: "web", Replicas: 30, Nodes: map[string]int{}, Pending: pending}
		for i, c := range counts {
			if c > 0 {
				w.Nodes[nodes[i].Name] = c
			}
		}
		return &RealPlacement{Nodes: nodes, Workloads: []RealWorkload{w}}
	}
	tests := []struct {
		name   string
		real   *RealPlacement
		pred   *Predictions
		exact  bool
		failed bool
		want   []string // substrings of the rendered table
	}{
		{
			name: "no ties, same counts",
			real: realRun(0, 12, 10, 8),
			pred: &Predictions{Det: result(0, 12, 10, 8), Seeded: []*simulate.Result{result(0, 12, 10, 8), result(0, 12, 10, 8)}},
			want: []string{"agrees", "issue14-lin-1", "12"},
		},
		{
			name:   "no ties, other counts",
			real:   realRun(0, 12, 10, 8),
			pred:   &Predictions{Det: result(0, 8, 15, 7), Seeded: []*simulate.Result{result(0, 8, 15, 7), result(0, 8, 15, 7)}},
			failed: true,
			want:   []string{"3 of 3 rows differ", "<- want 8", "<- want 15", "<- want 7"},
		},
		{
			name: "ties, within the range",
			real: realRun(0, 11, 10, 9),
			pred: &Predictions{Det: result(0, 10, 10, 10), Seeded: []*simulate.Result{result(0, 12, 10, 8), result(0, 9, 10, 11)}},
			want: []string{"agrees", "9..12 tie"},
		},
		{
			name:   "ties, outside the range",
			real:   realRun(0, 14, 10, 6),
			pred:   &Predictions{Det: result(0, 10, 10, 10), Seeded: []*simulate.Result{result(0, 12, 10, 8), result(0, 9, 10, 11)}},
			failed: true,
			want:   []string{"2 of 3 rows differ", "<- want 9..12", "<- want 8..11"},
		},
		{
			name: "a node no tie reaches must match even when others tie",
			real: realRun(0, 11, 9, 10),
			pred: &Predictions{Det: result(0, 10, 10, 10), Seeded: []*simulate.Result{result(0, 11, 10, 9), result(0, 9, 10, 11)}},
			// lin-2 is 10 in every run: the real 9 is wrong.
			failed: true,
			want:   []string{"1 of 3 rows differ", "<- want 10"},
		},
		{
			name:   "ties, within the range, but exact asked for",
			real:   realRun(0, 11, 10, 9),
			pred:   &Predictions{Det: result(0, 10, 10, 10), Seeded: []*simulate.Result{result(0, 12, 10, 8), result(0, 9, 10, 11)}},
			exact:  true,
			failed: true,
			want:   []string{"2 of 3 rows differ", "9..12 tie", "<- want 10"},
		},
		{
			name:   "pending pods count",
			real:   realRun(2, 12, 10, 6),
			pred:   &Predictions{Det: result(0, 12, 10, 8), Seeded: []*simulate.Result{result(0, 12, 10, 8)}},
			failed: true,
			want:   []string{"(pending)", "<- want 0"},
		},
		{
			name:   "workload missing from winkube",
			real:   realRun(0, 12, 10, 8),
			pred:   &Predictions{Det: &simulate.Result{}, Seeded: nil},
			failed: true,
			want:   []string{"reports nothing for Deployment/placement/web"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wcs := ComparePlacement(pc, tt.real, tt.pred, tt.exact)
			if len(wcs) != 1 {
				t.Fatalf("%d comparisons, want 1", len(wcs))
			}
			wc := wcs[0]
			table := wc.String()
			if wc.Failed() != tt.failed {
				t.Errorf("Failed() = %v, want %v\n%s", wc.Failed(), tt.failed, table)
			}
			for _, w := range tt.want {
				if !strings.Contains(table, w) {
					t.Errorf("table lacks %q:\n%s", w, table)
				}
			}
			if strings.Contains(table, "issue14-win-") {
				t.Errorf("table lists Windows nodes for a Linux Deployment that no side used:\n%s", table)
			}
		})
	}
}
