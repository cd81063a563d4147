package simulate

import (
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// decision is the scheduler's answer for one pod.
type decision struct {
	node     *node     // nil when the pod stays pending
	fit      *fitError // why, when pending
	noNodes  bool      // the cluster has no nodes at all
	feasible []*node   // nodes that passed every filter, when recorded
	verdicts []verdict // why nodes were rejected, for explanations
}

// verdict is the rejection of some nodes of one class for one reason.
type verdict struct {
	class  *class
	nodes  int
	status status
	taint  *corev1.Taint
}

// note adds n nodes of class c rejected with st.
func (d *decision) note(c *class, st status, taint *corev1.Taint, n int) {
	for i := range d.verdicts {
		v := &d.verdicts[i]
		if v.class == c && slices.Equal(v.status.reasons, st.reasons) {
			v.nodes += n
			return
		}
	}
	d.verdicts = append(d.verdicts, verdict{class: c, nodes: n, status: st, taint: taint})
}

// feasibleNames renders feasible nodes as sorted names.
func feasibleNames(ns []*node) []string {
	if len(ns) == 0 {
		return nil
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.name
	}
	sort.Strings(out)
	return out
}
