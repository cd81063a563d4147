package target

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

// MergeRuntimeClass is the RuntimeClass admission plugin's merge of the
// class's scheduling.nodeSelector and tolerations into a pod's: the
// merged selector and tolerations, and conflict, the API server's refusal
// when the class and the pod set a label to different values ("" when
// they agree). The plugin ranges over a map, so with several conflicting
// keys the real API server names one at random; winkube names the first
// in key order, and keeps the class's value in the merged selector.
//
// Source: k8s.io/kubernetes v1.36.3
// plugin/pkg/admission/runtimeclass/admission.go setScheduling.
func MergeRuntimeClass(nodeSelector map[string]string, tolerations []corev1.Toleration, rc *nodev1.RuntimeClass) (map[string]string, []corev1.Toleration, string) {
	if rc == nil || rc.Scheduling == nil {
		return nodeSelector, tolerations, ""
	}
	merged := make(map[string]string, len(nodeSelector)+len(rc.Scheduling.NodeSelector))
	maps.Copy(merged, nodeSelector)
	conflict := ""
	for _, k := range slices.Sorted(maps.Keys(rc.Scheduling.NodeSelector)) {
		v := rc.Scheduling.NodeSelector[k]
		if pv, ok := merged[k]; ok && pv != v && conflict == "" {
			conflict = fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, pv)
		}
		merged[k] = v
	}
	if len(merged) == 0 {
		merged = nil
	}
	return merged, MergeTolerations(tolerations, rc.Scheduling.Tolerations), conflict
}

// MergeTolerations appends the tolerations of b that a does not already
// contain; the result tolerates exactly what either list tolerates.
func MergeTolerations(a, b []corev1.Toleration) []corev1.Toleration {
	out := append([]corev1.Toleration(nil), a...)
	for _, t := range b {
		if !slices.ContainsFunc(out, func(x corev1.Toleration) bool { return x.MatchToleration(&t) }) {
			out = append(out, t)
		}
	}
	return out
}
