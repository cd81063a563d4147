package engine

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// The input as evidence: what the run's Windows workloads tolerate, counted
// as they are checked and summed up once the input is read (rule.Evidence),
// for the findings rules hold until then (rule.Pass.Later).

// evidence keeps, for the input's Windows workloads, each distinct set
// of tolerations and how many workloads carry it: enough to count, once
// the input is read, the workloads that tolerate each Windows taint
// convention, the known ones (cluster.KnownWindowsTaints) and those the
// input itself names (cluster.WindowsTaintNamed), whichever workload
// named it first.
type evidence struct {
	windows int
	sets    map[string]*tolerationSet
	// hostProcess holds each HostProcess DaemonSet's allowed builds by
	// rule.AgentKey (rule.Evidence.HostProcessBuilds).
	hostProcess map[string][][]string
}

// agent adds a HostProcess DaemonSet's allowed builds under its agent key.
func (e *evidence) agent(kind string, spec *corev1.PodSpec, f *target.Facts) {
	if kind != "DaemonSet" || !f.HostProcess || f.OS != target.Windows {
		return
	}
	if e.hostProcess == nil {
		e.hostProcess = map[string][][]string{}
	}
	k := rule.AgentKey(spec)
	e.hostProcess[k] = append(e.hostProcess[k], slices.Clone(f.Builds))
}

type tolerationSet struct {
	tols []corev1.Toleration
	n    int
}

// count adds one workload.
func (e *evidence) count(f *target.Facts) {
	if f.OS != target.Windows {
		return
	}
	if e.sets == nil {
		e.sets = map[string]*tolerationSet{}
	}
	e.windows++
	var b strings.Builder
	for _, t := range f.Tolerations {
		fmt.Fprintf(&b, "%q %q %q %q %v;", t.Key, t.Operator, t.Value, t.Effect, t.TolerationSeconds != nil)
	}
	k := b.String()
	if s, ok := e.sets[k]; ok {
		s.n++
		return
	}
	e.sets[k] = &tolerationSet{tols: slices.Clone(f.Tolerations), n: 1}
}

// conventions are the known conventions, then the ones the input names
// that are not known, in a stable order.
func (e *evidence) conventions() []corev1.Taint {
	out := cluster.KnownWindowsTaints()
	var named []corev1.Taint
	for _, s := range e.sets {
		for _, tol := range s.tols {
			t, ok := cluster.WindowsTaintNamed(tol)
			same := func(o corev1.Taint) bool { return o.MatchTaint(&t) }
			if !ok || slices.ContainsFunc(out, same) || slices.ContainsFunc(named, same) {
				continue
			}
			named = append(named, t)
		}
	}
	slices.SortFunc(named, func(a, b corev1.Taint) int {
		return strings.Compare(a.ToString(), b.ToString())
	})
	return append(out, named...)
}

// input sums the evidence up. The input's Windows taint convention is the
// convention that more of its Windows workloads tolerate than any other,
// provided at least half of them do: "3 of 4 Windows workloads tolerate
// os=windows:NoSchedule". Tolerations are matched as the scheduler
// matches them, so a blanket toleration (operator Exists, no key)
// tolerates every convention: it counts for all of them and so favours
// none. Two conventions tolerated by as many workloads are a tie, and a
// tie is no convention. One workload alone sets a convention only for
// itself, which it follows.
func (e *evidence) input() *rule.Evidence {
	in := &rule.Evidence{WindowsWorkloads: e.windows, HostProcessBuilds: e.hostProcess}
	conv := e.conventions()
	tolerating := make([]int, len(conv))
	for _, s := range e.sets {
		for i := range conv {
			if corev1helpers.TolerationsTolerateTaint(klog.Background(), s.tols, &conv[i], false) {
				tolerating[i] += s.n
			}
		}
	}
	best, tie := -1, false
	for i, n := range tolerating {
		switch {
		case best < 0 || n > tolerating[best]:
			best, tie = i, false
		case n == tolerating[best]:
			tie = true
		}
	}
	if best < 0 || tie {
		return in
	}
	if n := tolerating[best]; n > 0 && 2*n >= e.windows {
		in.WindowsTaint = &rule.Convention{Taint: conv[best], Tolerating: n}
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
