package rules

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/internal/cluster"
)

// tolerates reports whether the tolerations tolerate the taint, with the
// scheduler's own matching.
func tolerates(tols []corev1.Toleration, t *corev1.Taint) bool {
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), tols, t, false)
}

// untolerated returns the NoSchedule and NoExecute taints of the pool the
// tolerations do not tolerate.
func untolerated(p cluster.Pool, tols []corev1.Toleration) []corev1.Taint {
	var out []corev1.Taint
	for i := range p.Taints {
		t := &p.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerates(tols, t) {
			out = append(out, *t)
		}
	}
	return out
}

// caseOnlyMismatch returns a toleration that would tolerate t if taints
// were matched without regard to case; taints are case-sensitive.
func caseOnlyMismatch(tols []corev1.Toleration, t corev1.Taint) (int, bool) {
	lower := corev1.Taint{Key: strings.ToLower(t.Key), Value: strings.ToLower(t.Value), Effect: t.Effect}
	for i, tol := range tols {
		l := tol
		l.Key, l.Value = strings.ToLower(tol.Key), strings.ToLower(tol.Value)
		if tolerates([]corev1.Toleration{l}, &lower) {
			return i, true
		}
	}
	return 0, false
}

// tolerationFor is the toleration that tolerates exactly t.
func tolerationFor(t corev1.Taint) map[string]any {
	m := map[string]any{"key": t.Key, "operator": "Equal", "value": t.Value, "effect": string(t.Effect)}
	if t.Value == "" {
		m = map[string]any{"key": t.Key, "operator": "Exists", "effect": string(t.Effect)}
	}
	return m
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
