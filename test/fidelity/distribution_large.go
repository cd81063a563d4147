package fidelity

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
)

// Sizes of the large placement case.
const (
	largeLinuxNodes   = 110
	largeWindowsNodes = 40
)

// LargePlacementCase is a cluster above the scheduler's 100-node sampling
// threshold: 110 Linux and 40 Windows nodes of three sizes in two zones,
// and two Deployments, 250 Linux replicas then 120 Windows ones. With 150
// nodes kube-scheduler's adaptive percentageOfNodesToScore (50% - 150/125
// = 49%, at least 100 nodes) stops filtering after 100 feasible nodes, so
// each Linux pod is scored on 100 of the 110 Linux nodes, starting where
// the previous pod's search stopped; every Windows node is scored. winkube
// runs it with FullScoring, which models that sampling and the rotating
// start index.
func LargePlacementCase() *PlacementCase {
	pc := &PlacementCase{Name: "large-150-nodes", FullScoring: true}
	sizes := []nodeSize{nodeSizes[1], nodeSizes[2], nodeSizes[3]}
	for i := range largeLinuxNodes + largeWindowsNodes {
		os := "linux"
		if slices.Contains([]int{2, 5, 9, 12}, i%15) { // 4 of every 15: 40 of 150
			os = "windows"
		}
		zone := []string{"z1", "z2"}[i%2]
		size := sizes[(i/2)%len(sizes)]
		pc.Nodes = append(pc.Nodes, placementNode(fmt.Sprintf("large-%03d-%s", i+1, os[:3]), os, size, zone))
	}
	pc.Workloads = []Workload{
		deployment("web", "linux", 250, "100m", "256Mi"),
		deployment("iis", "windows", 120, "250m", "512Mi"),
	}
	return pc
}

// GroupRow is one group's total (a zone, an OS) of one workload.
type GroupRow struct {
	Group    string
	Real     int
	Det      int
	Min, Max int // over the seeded runs and the deterministic one
}

// GroupTotals sums each workload's real and predicted counts per group of
// nodes (key names a node's group, e.g. its zone), giving the range over
// the seeded runs. Pending pods are their own group.
func GroupTotals(pc *PlacementCase, real *RealPlacement, pred *Predictions, key func(*corev1.Node) string) map[string][]GroupRow {
	group := map[string]string{pendingRow: pendingRow}
	for _, n := range real.Nodes {
		group[n.Name] = key(n)
	}
	sum := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for n, c := range m {
			out[group[n]] += c
		}
		return out
	}
	out := map[string][]GroupRow{}
	for i, rw := range real.Workloads {
		ref := refOf(pc.Workloads[i])
		realCounts := map[string]int{pendingRow: rw.Pending}
		maps.Copy(realCounts, rw.Nodes)
		r := sum(realCounts)
		det, _ := counts(pred.Det, ref)
		d := sum(det)
		var seeded []map[string]int
		for _, res := range pred.Seeded {
			m, _ := counts(res, ref)
			seeded = append(seeded, sum(m))
		}
		names := map[string]bool{}
		for _, m := range append([]map[string]int{r, d}, seeded...) {
			for g, c := range m {
				names[g] = names[g] || c > 0
			}
		}
		for _, g := range slices.Sorted(maps.Keys(names)) {
			if !names[g] {
				continue
			}
			row := GroupRow{Group: g, Real: r[g], Det: d[g], Min: d[g], Max: d[g]}
			for _, m := range seeded {
				row.Min, row.Max = min(row.Min, m[g]), max(row.Max, m[g])
			}
			out[ref] = append(out[ref], row)
		}
	}
	return out
}

// renderGroups renders GroupTotals for the log.
func renderGroups(what string, groups map[string][]GroupRow) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, ref := range slices.Sorted(maps.Keys(groups)) {
		fmt.Fprintf(tw, "%s\t%s\treal\twinkube det\twinkube min..max\t\n", ref, what)
		for _, r := range groups[ref] {
			fmt.Fprintf(tw, "\t%s\t%d\t%d\t%d..%d\t\n", r.Group, r.Real, r.Det, r.Min, r.Max)
		}
	}
	tw.Flush()
	return b.String()
}
