package simulate

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/winsupport"
)

// maxFeasibleCells bounds pods × nodes for which every pod's feasible node
// list is kept: beyond it the lists would not fit in memory.
const maxFeasibleCells = 20_000_000

// Run simulates what the API server, kube-scheduler and kubelets do with
// the pods the input's workloads create, one pod after another in input
// order, so later pods see earlier ones.
func Run(ctx context.Context, in Input) (*Result, error) {
	res, err := runWith(ctx, in, runOptions{})
	if err != nil || res.Ties == 0 || in.Seed != nil || in.TieRuns == 0 {
		return res, err
	}
	return res, tieRanges(ctx, in, res)
}

// tieRanges reruns the simulation with seeds 0 to in.TieRuns-1 and widens
// each workload's per-node counts to the range over the runs.
func tieRanges(ctx context.Context, in Input, res *Result) error {
	ranges := make([]map[string]NodeCount, len(res.Workloads))
	for i, w := range res.Workloads {
		ranges[i] = map[string]NodeCount{}
		for _, nc := range w.Nodes {
			ranges[i][nc.Node] = nc
		}
	}
	for seed := range int64(in.TieRuns) {
		seeded := in
		seeded.Seed, seeded.Max = &seed, nil
		other, err := runWith(ctx, seeded, runOptions{})
		if err != nil {
			return err
		}
		for i, w := range other.Workloads {
			counts := map[string]int{}
			for _, nc := range w.Nodes {
				counts[nc.Node] = nc.Count
				if _, ok := ranges[i][nc.Node]; !ok {
					ranges[i][nc.Node] = NodeCount{Node: nc.Node} // unused by the first run
				}
			}
			for name, r := range ranges[i] {
				c := counts[name] // 0 where this run put no pod
				r.Min, r.Max = min(r.Min, c), max(r.Max, c)
				ranges[i][name] = r
			}
		}
	}
	for i := range res.Workloads {
		nodes := make([]NodeCount, 0, len(ranges[i]))
		for _, r := range ranges[i] {
			nodes = append(nodes, r)
		}
		slices.SortFunc(nodes, func(a, b NodeCount) int { return strings.Compare(a.Node, b.Node) })
		res.Workloads[i].Nodes = nodes
	}
	res.TieRuns = in.TieRuns
	return nil
}

// runOptions let tests pin the scheduler's strategy: every pod judged
// node by node, and feasible lists kept or not regardless of size.
type runOptions struct {
	generic  bool
	feasible *bool
	// unscoredSmall leaves small clusters to the bucket paths, so tests
	// can compare those with judging node by node.
	unscoredSmall bool
	// rescheduleRepeats schedules every replica after a pending one
	// again, so tests can compare with reusing its result.
	rescheduleRepeats bool
}

func runWith(ctx context.Context, in Input, opts runOptions) (*Result, error) {
	m := in.Model
	if m.V.Minor == 0 {
		m = winsupport.Default()
	}
	wls, rcs, notes, err := collect(in.Objects, in.Replicas)
	if err != nil {
		return nil, err
	}
	for _, rc := range in.RuntimeClasses {
		if _, ok := rcs[rc.Name]; !ok {
			rcs[rc.Name] = rc
		}
	}
	r := &runner{m: m, images: recording(in.Images), rcs: rcs, s: newScheduler(newNodes(in.Nodes, in.Pools), m), starts: map[startKey]bool{}, noKubelets: in.NoKubelets, stored: in.Stored, memo: in.Memo}
	if in.Profile != nil {
		r.s.scorer = newScorer(in.Profile)
	}
	if in.Seed != nil {
		r.s.rand = rand.New(rand.NewPCG(uint64(*in.Seed), 0x5eed))
	}
	r.s.images = newNodeImages(r.s.nodes)
	r.prepare(wls, servicesOf(in.Objects))
	total := 0
	for _, wl := range wls {
		total += wl.count
	}
	r.s.recordFeasible = total*len(r.s.nodes) <= maxFeasibleCells
	if opts.feasible != nil {
		r.s.recordFeasible = *opts.feasible
	}
	r.s.nodeByNode = opts.generic
	r.rescheduleRepeats = opts.rescheduleRepeats
	if in.FullScoring {
		r.s.scoredBelow = math.MaxInt
	}
	if opts.unscoredSmall {
		r.s.scoredBelow = 0
	}
	res := &Result{Version: m.V.String(), Notes: notes}
	listed := 0 // results place makes: a refused or pending pod past listedPods stands for the rest
	for _, wl := range wls {
		listed += min(wl.count, listedPods+1)
	}
	res.Pods = make([]PodResult, 0, listed)
	for _, wl := range wls {
		pods, err := r.place(ctx, wl)
		if err != nil {
			return nil, err
		}
		res.Pods = append(res.Pods, pods...)
	}
	if err := r.answerMax(ctx, wls, in.Max, res); err != nil {
		return nil, err
	}
	res.Workloads = workloadResults(wls, res.Pods)
	res.Ties = r.s.ties
	res.Pools = poolUsage(r.s.nodes)
	if !in.NoDependencies {
		res.Dependencies = dependencies(in, res)
	}
	res.Notes = append(res.Notes, modelNotes(r.s, total)...)
	res.Notes = append(res.Notes, r.images.notes()...)
	return res, nil
}
