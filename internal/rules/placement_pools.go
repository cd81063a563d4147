package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Helpers shared by the placement and image rules: which Windows pools a
// workload can reach, and how to name them in messages.

func isDaemonSet(p *rule.Pass) bool { return p.Object.Kind == "DaemonSet" }

// schedulableOn reports whether the scheduling constraints admit os.
func schedulableOn(f *target.Facts, os target.OS) bool {
	for _, s := range f.Schedulable {
		if s == os {
			return true
		}
	}
	return false
}

// buildAllowed reports whether the workload's windows-build constraints
// admit a node of the pool; nil Builds admits every build.
func buildAllowed(p *rule.Pass, pool cluster.Pool) bool {
	if p.Target.Builds == nil {
		return true
	}
	for _, b := range p.Target.Builds {
		if sameBuild(p, b, pool.WindowsBuild) {
			return true
		}
	}
	return false
}

// sameBuild compares windows-build values as the label means them:
// "10.0.20348" and "10.0.20348.2461" are the same build.
func sameBuild(p *rule.Pass, a, b string) bool {
	return buildNumber(p.Model, a) == buildNumber(p.Model, b)
}

// buildNumber is the 10.0.NNNNN form of a windows-build value.
func buildNumber(m winsupport.Model, s string) string {
	if b, ok := m.BuildByNumber(s); ok {
		return b.Build
	}
	return s
}

// windowsPools returns the cluster's Windows pools the workload's build
// constraints admit, split into those whose NoSchedule and NoExecute
// taints it tolerates (or that have none) and those it does not.
func windowsPools(p *rule.Pass) (reachable, tainted []cluster.Pool) {
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if !buildAllowed(p, pool) {
			continue
		}
		if len(untolerated(pool, p.Target.Tolerations)) == 0 {
			reachable = append(reachable, pool)
		} else {
			tainted = append(tainted, pool)
		}
	}
	return reachable, tainted
}

// schedulingTaints are the taints that keep pods off a node.
func schedulingTaints(pool cluster.Pool) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range pool.Taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

// toleratingIndex returns the first toleration that tolerates t.
func toleratingIndex(tols []corev1.Toleration, t corev1.Taint) (int, bool) {
	for i := range tols {
		if tolerates(tols[i:i+1], &t) {
			return i, true
		}
	}
	return 0, false
}

// blanket reports whether a toleration tolerates every taint (of its
// effect, when it names one).
func blanket(t corev1.Toleration) bool {
	return t.Key == "" && t.Operator == corev1.TolerationOpExists
}

// poolList names pools for a message: `"win2019" and "win2022"`.
func poolList(pools []cluster.Pool, detail func(cluster.Pool) string) string {
	parts := make([]string, len(pools))
	for i, pool := range pools {
		parts[i] = fmt.Sprintf("%q", pool.Name)
		if detail != nil {
			if d := detail(pool); d != "" {
				parts[i] += " (" + d + ")"
			}
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// plural picks the singular or plural form for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// buildName is "Windows Server 2022 (10.0.20348)", or the bare value for a
// build the model does not know.
func buildName(p *rule.Pass, s string) string {
	if b, ok := p.Model.BuildByNumber(s); ok {
		return b.Name + " (" + b.Build + ")"
	}
	return s
}
