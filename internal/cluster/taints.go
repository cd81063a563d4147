package cluster

import corev1 "k8s.io/api/core/v1"

// Repels reports whether ts keep pods that do not tolerate them off a
// node: a NoSchedule or NoExecute taint (PreferNoSchedule only steers).
func Repels(ts []corev1.Taint) bool {
	for _, t := range ts {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

// HasTaint reports whether ts hold t: the same key, value and effect.
func HasTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for _, x := range ts {
		if x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect {
			return true
		}
	}
	return false
}
