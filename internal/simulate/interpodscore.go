package simulate

// topoScores is InterPodAffinity's PreScore state: weights per topology
// key and value.
type topoScores map[string]map[string]int64

func (m topoScores) add(key, value string, w int64) {
	if m[key] == nil {
		m[key] = map[string]int64{}
	}
	m[key][value] += w
}

// interPodScores is InterPodAffinity's PreScore, Score and NormalizeScore
// for a pod of template t over the feasible nodes, into out. It reports
// false when the plugin skips (nothing to score).
func (s *scheduler) interPodScores(t *tmpl, prof *Profile, feasible []*node, out []int64) bool {
	in := t.sp.prefs
	if !in.hasPreferred() && (prof.IgnorePreferredTermsOfExistingPods || !s.anyAffinity) {
		return false // no bound pod has terms that could score this one
	}
	m := topoScores{}
	contributed := false
	for _, p := range s.placed {
		if !in.hasPreferred() && p.sp.prefs == nil {
			continue // only pods whose terms score others are walked then
		}
		nl := p.node.obj.Labels
		if len(nl) == 0 {
			continue
		}
		score := func(tm term, w int64, matches bool) {
			if v, ok := nl[tm.topologyKey]; ok && matches {
				m.add(tm.topologyKey, v, w)
				contributed = true
			}
		}
		if in != nil {
			for _, w := range in.aff {
				score(w.term, w.weight, w.matches(p.ns, p.labels))
			}
			for _, w := range in.anti {
				score(w.term, -w.weight, w.matches(p.ns, p.labels))
			}
		}
		if ex := p.sp.prefs; ex != nil {
			if prof.HardPodAffinityWeight > 0 {
				for _, tm := range ex.required {
					score(tm, prof.HardPodAffinityWeight, tm.matches(t.ns, t.labels))
				}
			}
			if !prof.IgnorePreferredTermsOfExistingPods {
				for _, w := range ex.aff {
					score(w.term, w.weight, w.matches(t.ns, t.labels))
				}
				for _, w := range ex.anti {
					score(w.term, -w.weight, w.matches(t.ns, t.labels))
				}
			}
		}
	}
	if !contributed {
		return false
	}
	lo, hi := int64(0), int64(0)
	for j, n := range feasible {
		var sc int64
		for key, values := range m {
			if v, ok := n.obj.Labels[key]; ok {
				sc += values[v]
			}
		}
		out[j] = sc
		if j == 0 || sc < lo {
			lo = sc
		}
		if j == 0 || sc > hi {
			hi = sc
		}
	}
	for j := range feasible {
		f := 0.0
		if hi > lo {
			f = float64(maxNodeScore) * (float64(out[j]-lo) / float64(hi-lo))
		}
		out[j] = int64(f)
	}
	return true
}
