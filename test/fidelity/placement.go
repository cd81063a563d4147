package fidelity

import (
	corev1 "k8s.io/api/core/v1"
)

// nodeSelector pins the pod's intended OS most of the time, sometimes a
// Windows build or a custom label too.
func (g *gen) nodeSelector(p *corev1.Pod, intent string, nodes []*corev1.Node) {
	sel := map[string]string{}
	switch intent {
	case "windows":
		if g.chance(0.65) {
			sel[corev1.LabelOSStable] = "windows"
		}
		if g.chance(0.25) {
			sel[labelWindowsBuild] = pick(g, windowsBuilds...).build
			if n := g.windowsNode(nodes); n != nil && g.chance(0.7) && n.Labels[labelWindowsBuild] != "" {
				sel[labelWindowsBuild] = n.Labels[labelWindowsBuild]
			}
		}
		if g.chance(0.05) {
			sel[labelBetaOS] = "windows"
		}
	case "linux":
		if g.chance(0.6) {
			sel[corev1.LabelOSStable] = "linux"
		}
	}
	if g.chance(0.08) {
		sel[labelDisk] = "ssd"
	}
	if g.chance(0.05) {
		sel[labelTeam] = "a"
	}
	if len(sel) > 0 {
		p.Spec.NodeSelector = sel
	}
}

// affinity adds required node affinity: one or two terms (ORed) of one or
// two expressions, sometimes matchFields on metadata.name, and sometimes a
// preferred term, which must not change feasibility.
func (g *gen) affinity(p *corev1.Pod, intent string, nodes []*corev1.Node) {
	var terms []corev1.NodeSelectorTerm
	for range 1 + g.weighted(75, 25) {
		var t corev1.NodeSelectorTerm
		for range 1 + g.weighted(80, 20) {
			t.MatchExpressions = append(t.MatchExpressions, g.requirement(intent))
		}
		if g.chance(0.15) {
			name := pick(g, nodes...).Name
			if g.chance(0.1) {
				name = g.prefix + "-gone"
			}
			op := pick(g, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn)
			t.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: op, Values: []string{name}}}
		}
		terms = append(terms, t)
	}
	a := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	if g.chance(0.15) {
		a.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.PreferredSchedulingTerm{{Weight: 50,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: labelDisk, Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}
	}
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: a}
}

func (g *gen) requirement(intent string) corev1.NodeSelectorRequirement {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	os := intent
	if os == "" {
		os = pick(g, "linux", "windows")
	}
	other := map[string]string{"linux": "windows", "windows": "linux"}[os]
	switch g.weighted(20, 15, 12, 10, 8, 7, 7, 12, 9) {
	case 0:
		return req(corev1.LabelOSStable, corev1.NodeSelectorOpIn, os)
	case 1:
		return req(corev1.LabelOSStable, corev1.NodeSelectorOpNotIn, other)
	case 2:
		b1, b2 := pick(g, windowsBuilds...).build, pick(g, windowsBuilds...).build
		if b1 == b2 {
			return req(labelWindowsBuild, corev1.NodeSelectorOpIn, b1)
		}
		return req(labelWindowsBuild, corev1.NodeSelectorOpIn, b1, b2)
	case 3:
		return req(labelDisk, corev1.NodeSelectorOpExists)
	case 4:
		return req(labelDisk, corev1.NodeSelectorOpDoesNotExist)
	case 5:
		return req(labelGPUs, corev1.NodeSelectorOpGt, pick(g, "1", "3"))
	case 6:
		return req(labelGPUs, corev1.NodeSelectorOpLt, pick(g, "1", "3"))
	case 7:
		return req(labelTeam, pick(g, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn), "a")
	default:
		return req(labelZone, corev1.NodeSelectorOpIn, "z1")
	}
}

func toleration(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

// windowsTolerations are what Windows pods carry in the wild: the seeds'
// toleration, broader ones, and near misses that tolerate nothing (a
// mis-cased key or value; only NoExecute).
var windowsTolerations = []struct {
	weight int
	tols   []corev1.Toleration
}{
	{10, nil},
	{30, []corev1.Toleration{toleration("os", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule)}},
	{6, []corev1.Toleration{toleration("os", "", "windows", corev1.TaintEffectNoSchedule)}}, // operator defaults to Equal
	{8, []corev1.Toleration{toleration("os", corev1.TolerationOpExists, "", "")}},
	{8, []corev1.Toleration{toleration("os", corev1.TolerationOpEqual, "windows", "")}},
	{6, []corev1.Toleration{toleration("OS", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule)}},
	{6, []corev1.Toleration{toleration("os", corev1.TolerationOpEqual, "Windows", corev1.TaintEffectNoSchedule)}},
	{8, []corev1.Toleration{toleration("node.kubernetes.io/os", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule)}},
	{4, []corev1.Toleration{toleration("", corev1.TolerationOpExists, "", "")}},
	{4, []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(30))}}},
	{5, []corev1.Toleration{
		toleration("os", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule),
		toleration("node.kubernetes.io/os", corev1.TolerationOpEqual, "windows", corev1.TaintEffectNoSchedule)}},
}

// windowsNode returns one of the Windows nodes, nil if there is none.
func (g *gen) windowsNode(nodes []*corev1.Node) *corev1.Node {
	var win []*corev1.Node
	for _, n := range nodes {
		if n.Labels[corev1.LabelOSStable] == "windows" {
			win = append(win, n)
		}
	}
	if len(win) == 0 {
		return nil
	}
	return pick(g, win...)
}

func (g *gen) tolerations(p *corev1.Pod, intent string, nodes []*corev1.Node) {
	var tols []corev1.Toleration
	switch {
	case intent == "windows" && g.chance(0.65) && g.windowsNode(nodes) != nil:
		// Well configured: tolerate exactly the taints of a Windows node.
		for _, t := range g.windowsNode(nodes).Spec.Taints {
			if t.Effect != corev1.TaintEffectPreferNoSchedule {
				tols = append(tols, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
		}
	case intent == "windows" || (intent == "" && g.chance(0.3)):
		weights := make([]int, len(windowsTolerations))
		for i, w := range windowsTolerations {
			weights[i] = w.weight
		}
		tols = append(tols, windowsTolerations[g.weighted(weights...)].tols...)
	case intent == "linux" && g.chance(0.1):
		tols = append(tols, toleration("dedicated", corev1.TolerationOpEqual, "infra", corev1.TaintEffectNoSchedule))
	case intent == "linux" && g.chance(0.05):
		tols = append(tols, toleration("", corev1.TolerationOpExists, "", ""))
	}
	if g.chance(0.06) {
		tols = append(tols, toleration("dedicated", corev1.TolerationOpExists, "", ""))
	}
	p.Spec.Tolerations = tols
}
