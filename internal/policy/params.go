package policy

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// ParamsName is the name of the params ConfigMap the bindings refer to.
const ParamsName = "winkube-cluster"

// Params builds the ConfigMap the policies read the cluster from. A
// ConfigMap is what the API server can serve as paramKind without a CRD;
// its data is strings only, so lists are encoded:
//
//	hybrid        "true" when the cluster has Linux and Windows pools
//	builds        the windows-build values a Windows node may carry: the
//	              cluster's, then every build the model knows (target's
//	              candidateBuilds), comma-separated
//	buildNumbers  the same builds as 10.0.NNNNN, in the same order
//	windowsPools  one line per Windows pool:
//	              name|build|taint,taint|label|portMappings
//	              where build is the pool's build as 10.0.NNNNN, a taint is
//	              key=value:Effect or key:Effect (NoSchedule and NoExecute
//	              only; PreferNoSchedule keeps no pod off), label the
//	              pool's windows-build as the profile writes it (messages
//	              name it) and portMappings the pool's cniPortMappings
//	              (true, false or empty when unknown)
func Params(c *cluster.Cluster, m winsupport.Model, namespace string) (*corev1.ConfigMap, error) {
	var raw, norm []string
	seen := map[string]bool{}
	add := func(b string) {
		if b == "" || seen[b] {
			return
		}
		seen[b] = true
		raw = append(raw, b)
		norm = append(norm, buildNumber(m, b))
	}
	for _, b := range c.WindowsBuilds() {
		add(b)
	}
	for _, b := range m.Builds() {
		add(b.Build)
	}
	var pools []string
	for _, p := range c.PoolsOf("windows") {
		if strings.ContainsAny(p.Name, "|,\n") {
			return nil, fmt.Errorf("windows pool %q: a name with '|', ',' or a newline cannot be exported to the params ConfigMap; rename the pool", p.Name)
		}
		var taints []string
		for _, t := range p.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				continue
			}
			s := t.Key + ":" + string(t.Effect)
			if t.Value != "" {
				s = t.Key + "=" + t.Value + ":" + string(t.Effect)
			}
			taints = append(taints, s)
		}
		portMappings := ""
		if p.CNIPortMappings != nil {
			portMappings = fmt.Sprint(*p.CNIPortMappings)
		}
		pools = append(pools, p.Name+"|"+buildNumber(m, p.WindowsBuild)+"|"+strings.Join(taints, ",")+"|"+p.WindowsBuild+"|"+portMappings)
	}
	for _, b := range raw {
		if strings.ContainsAny(b, ",|\n") {
			return nil, fmt.Errorf("windows build %q: not a windows-build label value", b)
		}
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ParamsName, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "winkube"}},
		Data: map[string]string{
			"hybrid":       fmt.Sprint(c.Hybrid()),
			"builds":       strings.Join(raw, ","),
			"buildNumbers": strings.Join(norm, ","),
			"windowsPools": strings.Join(pools, "\n"),
		},
	}, nil
}

// buildNumber is the 10.0.NNNNN form of a windows-build value, as the
// rules compare builds.
func buildNumber(m winsupport.Model, s string) string {
	if b, ok := m.BuildByNumber(s); ok {
		return b.Build
	}
	return s
}
