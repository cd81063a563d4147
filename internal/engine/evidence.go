package engine

import (
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// The input as evidence: what the run's Windows workloads tolerate, counted
// as they are checked and summed up once the input is read (rule.Evidence),
// for the findings rules hold until then (rule.Pass.Later).

// evidence counts, for each known Windows taint convention
// (cluster.KnownWindowsTaints), the Windows workloads that tolerate it.
type evidence struct {
	windows    int
	tolerating []int
}

// count adds one workload. Tolerations are matched as the scheduler
// matches them, so a blanket toleration (operator Exists, no key)
// tolerates every convention: it counts for all of them and so favours
// none.
func (e *evidence) count(f *target.Facts) {
	if f.OS != target.Windows {
		return
	}
	known := cluster.KnownWindowsTaints()
	if e.tolerating == nil {
		e.tolerating = make([]int, len(known))
	}
	e.windows++
	for i := range known {
		if corev1helpers.TolerationsTolerateTaint(klog.Background(), f.Tolerations, &known[i], false) {
			e.tolerating[i]++
		}
	}
}

// input sums the evidence up. The input's Windows taint convention is the
// known convention that more of its Windows workloads tolerate than any
// other, provided at least half of them do: "3 of 4 Windows workloads
// tolerate os=windows:NoSchedule". Two conventions tolerated by as many
// workloads are a tie, and a tie is no convention. One workload alone
// sets a convention only for itself, which it follows.
func (e *evidence) input() *rule.Evidence {
	in := &rule.Evidence{WindowsWorkloads: e.windows}
	best, tie := -1, false
	for i, n := range e.tolerating {
		switch {
		case best < 0 || n > e.tolerating[best]:
			best, tie = i, false
		case n == e.tolerating[best]:
			tie = true
		}
	}
	if best < 0 || tie {
		return in
	}
	if n := e.tolerating[best]; n > 0 && 2*n >= e.windows {
		in.WindowsTaint = &rule.Convention{Taint: cluster.KnownWindowsTaints()[best], Tolerating: n}
	}
	return in
}

// held is a finding a rule holds until the input is read.
type held struct {
	seq    int
	rule   *rule.Rule
	f      rule.Finding
	decide rule.Decide
}

// holder returns a rule.Pass.Defer that collects into hs.
func holder(ru *rule.Rule, hs *[]held) func(rule.Finding, rule.Decide) {
	return func(f rule.Finding, d rule.Decide) {
		*hs = append(*hs, held{rule: ru, f: f, decide: d})
	}
}

// hold settles held findings against their object (which is at hand) and
// keeps them for the end of the run.
func (r *run) hold(seq int, hs []held) {
	if len(hs) == 0 {
		return
	}
	fs := make([]rule.Finding, len(hs))
	for i := range hs {
		fs[i] = hs[i].f
	}
	r.settle(fs)
	r.mu.Lock()
	for i := range hs {
		hs[i].seq, hs[i].f = seq, fs[i]
		r.held = append(r.held, hs[i])
	}
	r.mu.Unlock()
}

// release decides every held finding with what the whole input says.
func (r *run) release() {
	in := r.evidence.input()
	in.Services = map[string]bool{}
	for _, o := range r.services {
		in.Services[rule.ServiceKey(o.Namespace, o.Name)] = true
	}
	for _, h := range r.held {
		f := h.f
		if h.decide(in, &f) {
			f.Severity = h.rule.SeverityOf(f)
			r.findings = append(r.findings, seqFinding{h.seq, f})
		}
	}
	r.held = nil
}
