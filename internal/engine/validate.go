package engine

import (
	"slices"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// Validate runs the rules over each object as the API server validates
// it, one object at a time, and returns each object's findings in the
// order the rules emit them: opts.Rules in order, each rule's findings as
// it reports them. For the API-rejection rules that is the order of the
// API server's field errors, which simulate repeats in its "is invalid"
// messages; Run and Check sort by position instead. RuntimeClasses come
// from opts only, and suppression is reported but does not drop a
// finding: the annotation is winkube's, the API server refuses all the
// same.
func Validate(objs []*manifest.Object, opts Options) [][]rule.Finding {
	r := newRun(opts)
	out := make([][]rule.Finding, len(objs))
	for i, o := range objs {
		var fs []rule.Finding
		emit := func(f rule.Finding) { fs = append(fs, f) }
		w := o.Workload()
		var pass rule.Pass
		if w != nil {
			facts := r.facts(w)
			pass = rule.Pass{Object: o, Workload: w, Target: &facts, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit}
		}
		for _, ru := range opts.Rules {
			switch {
			case ru.Workload != nil && w != nil:
				p := pass
				p.Rule = ru
				ru.Workload(&p)
			case ru.Object != nil && o.Typed != nil && slices.Contains(ru.Kinds, o.Kind):
				ru.Object(&rule.Pass{Rule: ru, Object: o, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit})
			}
		}
		r.settle(fs)
		out[i] = fs
	}
	return out
}
