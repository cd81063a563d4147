package fidelity

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// SimulatePlacement runs a placement case through winkube: nodes are the
// Node objects the real API server stored, in creation order, and the
// existing pods and Deployments go through the manifest loader from their
// YAML, in creation order. seed is simulate.Input.Seed: nil for the
// deterministic model, else ties broken at random with that seed.
func SimulatePlacement(ctx context.Context, pc *PlacementCase, nodes []*corev1.Node, seed *int64) (*simulate.Result, error) {
	data, err := marshalDocs(pc.documents())
	if err != nil {
		return nil, err
	}
	objs, err := readObjects(pc.Name+".yaml", data)
	if err != nil {
		return nil, err
	}
	return simulate.Run(ctx, simulate.Input{Nodes: nodes, Objects: objs, Model: winsupport.Default(), NoKubelets: true, Seed: seed,
		FullScoring: pc.FullScoring})
}

// Predictions are winkube's answers for one case: the deterministic model
// and the runs with seeds 1..K.
type Predictions struct {
	Det    *simulate.Result
	Seeded []*simulate.Result
}

// Predict runs the deterministic model and seeds 1..k.
func Predict(ctx context.Context, pc *PlacementCase, nodes []*corev1.Node, k int) (*Predictions, error) {
	det, err := SimulatePlacement(ctx, pc, nodes, nil)
	if err != nil {
		return nil, fmt.Errorf("simulate.Run (deterministic): %w", err)
	}
	p := &Predictions{Det: det}
	for s := range int64(k) {
		seed := s + 1
		res, err := SimulatePlacement(ctx, pc, nodes, &seed)
		if err != nil {
			return nil, fmt.Errorf("simulate.Run (seed %d): %w", seed, err)
		}
		p.Seeded = append(p.Seeded, res)
	}
	return p, nil
}

// pendingRow names the table row of pods left pending.
const pendingRow = "(pending)"

// counts returns a workload's bound pods per node and its pending pods
// (under pendingRow) in a simulation result, ok false if the result does
// not mention the workload.
func counts(res *simulate.Result, workload string) (map[string]int, bool) {
	for _, w := range res.Workloads {
		if w.Workload != workload {
			continue
		}
		m := map[string]int{pendingRow: w.Pending}
		for _, nc := range w.Nodes {
			m[nc.Node] += nc.Count
		}
		return m, true
	}
	return nil, false
}

// PlacementRow compares one node (or the pending pods) of one workload.
type PlacementRow struct {
	Node     string
	Zone     string
	Size     string
	OS       string
	Real     int
	Det      int
	Min, Max int  // over the seeded runs and the deterministic one
	Tied     bool // the seeded runs disagree on this node
	Exact    bool // the real count had to be Det even so
	OK       bool
}

// want says what the real count had to be.
func (r PlacementRow) want() string {
	if r.Tied && !r.Exact {
		return fmt.Sprintf("%d..%d", r.Min, r.Max)
	}
	return fmt.Sprint(r.Det)
}

// WorkloadComparison is the verdict on one workload of a case.
type WorkloadComparison struct {
	Case     string
	Workload string // Kind/<namespace>/<name>
	Replicas int
	Seeds    int
	Rows     []PlacementRow
	Problem  string // set when winkube's results cannot be compared at all
}

// Failed reports whether the real placement disagrees with winkube's.
func (wc *WorkloadComparison) Failed() bool {
	if wc.Problem != "" {
		return true
	}
	for _, r := range wc.Rows {
		if !r.OK {
			return true
		}
	}
	return false
}

// ComparePlacement checks each real workload's per-node counts against
// winkube's: a node's real count must equal the deterministic prediction
// where every seeded run agrees on that node (no tie reaches it), and
// otherwise lie within the range the seeded and deterministic runs span.
// The pending pods are compared the same way. With exact, the real count
// must equal the deterministic one on every node, ties or not. Rows list
// every node of the workload's OS and every node any side put a pod on, in
// creation order.
func ComparePlacement(pc *PlacementCase, real *RealPlacement, pred *Predictions, exact bool) []*WorkloadComparison {
	var out []*WorkloadComparison
	for i, rw := range real.Workloads {
		wl := pc.Workloads[i]
		wc := &WorkloadComparison{Case: pc.Name, Workload: refOf(wl),
			Replicas: rw.Replicas, Seeds: len(pred.Seeded)}
		out = append(out, wc)
		det, ok := counts(pred.Det, wc.Workload)
		if !ok {
			wc.Problem = "winkube's deterministic run reports nothing for " + wc.Workload
			continue
		}
		var seeded []map[string]int
		for j, res := range pred.Seeded {
			m, ok := counts(res, wc.Workload)
			if !ok {
				wc.Problem = fmt.Sprintf("winkube's run with seed %d reports nothing for %s", j+1, wc.Workload)
				break
			}
			seeded = append(seeded, m)
		}
		if wc.Problem != "" {
			continue
		}
		realCounts := map[string]int{pendingRow: rw.Pending}
		for n, c := range rw.Nodes {
			realCounts[n] = c
		}
		os := templateOf(wl).Spec.NodeSelector[corev1.LabelOSStable]
		rows := append([]*corev1.Node(nil), real.Nodes...)
		rows = append(rows, nil) // the pending row
		for _, n := range rows {
			r := PlacementRow{Node: pendingRow}
			if n != nil {
				r = PlacementRow{Node: n.Name, Zone: n.Labels[labelZone], Size: n.Labels[labelInstanceType], OS: n.Labels[corev1.LabelOSStable]}
			}
			r.Real, r.Det = realCounts[r.Node], det[r.Node]
			r.Min, r.Max = r.Det, r.Det
			for j, m := range seeded {
				v := m[r.Node]
				r.Min, r.Max = min(r.Min, v), max(r.Max, v)
				r.Tied = r.Tied || (j > 0 && v != seeded[0][r.Node])
			}
			r.Exact = exact
			if r.Tied && !exact {
				r.OK = r.Min <= r.Real && r.Real <= r.Max
			} else {
				r.OK = r.Real == r.Det
			}
			if n != nil && r.OS != os && r.Real == 0 && r.Max == 0 {
				continue
			}
			if n == nil && r.Real == 0 && r.Max == 0 {
				continue
			}
			wc.Rows = append(wc.Rows, r)
		}
	}
	return out
}

// String renders the comparison as a table: node, its zone, size and OS,
// the real count, winkube's deterministic count, the range over the seeded
// runs, and what the real count had to be where it is not.
func (wc *WorkloadComparison) String() string {
	var b strings.Builder
	bad := 0
	for _, r := range wc.Rows {
		if !r.OK {
			bad++
		}
	}
	verdict := "agrees"
	switch {
	case wc.Problem != "":
		verdict = wc.Problem
	case bad > 0:
		verdict = fmt.Sprintf("%d of %d rows differ", bad, len(wc.Rows))
	}
	fmt.Fprintf(&b, "%s %s (%d pods): %s\n", wc.Case, wc.Workload, wc.Replicas, verdict)
	if wc.Problem != "" {
		return b.String()
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  node\tzone\tsize\tos\treal\twinkube det\twinkube min..max (%d seeds)\t\n", wc.Seeds)
	for _, r := range wc.Rows {
		mark := ""
		if !r.OK {
			mark = "<- want " + r.want()
		}
		tied := ""
		if r.Tied {
			tied = "tie"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%d\t%d..%d %s\t%s\n", r.Node, r.Zone, r.Size, r.OS, r.Real, r.Det, r.Min, r.Max, tied, mark)
	}
	tw.Flush()
	return b.String()
}
