package simulate

import (
	corev1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/winkube/winkube/internal/winsupport"
)

// static is the verdict of the filters that read only the node object,
// in the scheduler's order (NodeUnschedulable, TaintToleration,
// NodeAffinity), and the raw scores that read only the node object.
type static struct {
	fail     *status
	taint    *corev1.Taint // the untolerated taint, for explanations
	affinity int64         // NodeAffinity: sum of matching preferred weights
	prefer   int64         // TaintToleration: intolerable PreferNoSchedule taints
}

// staticFilters judges node n for the pod.
func staticFilters(sp *schedPod, n *corev1.Node, m winsupport.Model) static {
	var st static
	if n.Spec.Unschedulable && !v1helper.TolerationsTolerateTaint(quiet, sp.tolerations,
		&corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}, false) {
		st.fail = &status{reasons: []string{reasonUnschedulable}}
		return st
	}
	if t, bad := untoleratedTaint(n.Spec.Taints, sp.tolerations); bad {
		st.fail = &status{reasons: []string{taintReason(m, t)}}
		st.taint = &t
		return st
	}
	if ok, _ := sp.required.Match(n); !ok {
		st.fail = &status{reasons: []string{reasonNodeAffinity}}
		return st
	}
	if sp.preferred != nil {
		st.affinity = sp.preferred.Score(n)
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && !v1helper.TolerationsTolerateTaint(quiet, sp.preferTols, t, false) {
			st.prefer++
		}
	}
	return st
}

// untoleratedTaint finds the first NoSchedule or NoExecute taint the
// tolerations do not tolerate, as the TaintToleration filter does.
func untoleratedTaint(taints []corev1.Taint, tols []corev1.Toleration) (corev1.Taint, bool) {
	return v1helper.FindMatchingUntoleratedTaint(quiet, taints, tols, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
}

// hostPort is a port taken on a node.
type hostPort struct {
	ip       string
	protocol corev1.Protocol
	port     int32
}

func toHostPort(p corev1.ContainerPort) hostPort {
	hp := hostPort{ip: p.HostIP, protocol: p.Protocol, port: p.HostPort}
	if hp.ip == "" {
		hp.ip = "0.0.0.0"
	}
	if hp.protocol == "" {
		hp.protocol = corev1.ProtocolTCP
	}
	return hp
}

// portsFit is NodePorts: a wanted port conflicts with a used one of the
// same protocol and number when either binds all addresses or both bind
// the same one.
func portsFit(want []corev1.ContainerPort, used []hostPort) bool {
	for _, p := range want {
		w := toHostPort(p)
		for _, u := range used {
			if u.port == w.port && u.protocol == w.protocol && (w.ip == "0.0.0.0" || u.ip == "0.0.0.0" || u.ip == w.ip) {
				return false
			}
		}
	}
	return true
}

// tolerates reports whether any of the tolerations tolerates t.
func tolerates(tols []corev1.Toleration, t *corev1.Taint) bool {
	return v1helper.TolerationsTolerateTaint(quiet, tols, t, false)
}

// nodeAffinityMatches reports whether n passes the required node affinity r.
func nodeAffinityMatches(r nodeaffinity.RequiredNodeAffinity, n *corev1.Node) bool {
	ok, _ := r.Match(n)
	return ok
}
