package policy

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

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
//	              name|build|taint,taint|label|portMappings|cni|mode|icmp
//	              where build is the pool's build as 10.0.NNNNN, a taint is
//	              key=value:Effect or key:Effect (NoSchedule and NoExecute
//	              only; PreferNoSchedule keeps no pod off), label the
//	              pool's windows-build as the profile writes it (messages
//	              name it), portMappings the pool's cniPortMappings
//	              (true, false or empty when unknown), cni the pool's CNI
//	              as the profile writes it (empty when unknown), mode its
//	              network mode (cluster.Pool.Mode: the networkMode field
//	              or what the CNI implies; empty when unknown) and icmp
//	              "drops" when the CNI drops outbound ICMP
//	              (cluster.Pool.DropsOutboundICMP), else empty
//	clusterDomain the cluster's DNS domain (cluster.Cluster.Domain)
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
	if err := encodable(c); err != nil {
		return nil, err
	}
	var pools []string
	for _, p := range c.PoolsOf("windows") {
		var taints []string
		for _, t := range p.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				continue
			}
			taints = append(taints, taintString(t))
		}
		portMappings := ""
		if p.CNIPortMappings != nil {
			portMappings = fmt.Sprint(*p.CNIPortMappings)
		}
		icmp := ""
		if p.DropsOutboundICMP() {
			icmp = "drops"
		}
		pools = append(pools, p.Name+"|"+buildNumber(m, p.WindowsBuild)+"|"+strings.Join(taints, ",")+"|"+p.WindowsBuild+"|"+portMappings+"|"+p.CNI+"|"+p.Mode()+"|"+icmp)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ParamsName, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "winkube"}},
		Data: map[string]string{
			"hybrid":       fmt.Sprint(c.Hybrid()),
			"builds":       strings.Join(raw, ","),
			"buildNumbers": strings.Join(norm, ","),
			"windowsPools": strings.Join(pools, "\n"),
			// The cluster file's clusterDomain: the network rules
			// name Services by it.
			"clusterDomain": c.Domain(),
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

// encodable checks every value the params encoding carries as the API
// server checks it on a Node (kubernetes/kubernetes v1.36.3
// pkg/apis/core/validation/validation.go validateNodeTaints: the key a
// qualified name, the value a label value, a known effect), pool names
// as node-name prefixes (DNS-1123 labels) and builds as windows-build
// label values. None of these can contain the encoding's delimiters
// ('|', ',', ':', '=', '\n', '\r'), so no value can be misread by the
// policies' CEL; anything else is refused with every problem named.
func encodable(c *cluster.Cluster) error {
	var errs field.ErrorList
	for i, p := range c.Pools {
		if p.OS != "windows" || p.Count <= 0 {
			continue
		}
		at := field.NewPath("pools").Index(i)
		for _, msg := range utilvalidation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(at.Child("name"), p.Name, msg))
		}
		for _, msg := range utilvalidation.IsValidLabelValue(p.WindowsBuild) {
			errs = append(errs, field.Invalid(at.Child("windowsBuild"), p.WindowsBuild, msg))
		}
		// The CNI and network mode are names (cluster.KnownCNIs and the
		// network modes the cluster file's validation knows).
		for _, msg := range utilvalidation.IsValidLabelValue(p.CNI) {
			errs = append(errs, field.Invalid(at.Child("cni"), p.CNI, msg))
		}
		for _, msg := range utilvalidation.IsValidLabelValue(p.NetworkMode) {
			errs = append(errs, field.Invalid(at.Child("networkMode"), p.NetworkMode, msg))
		}
		for j, t := range p.Taints {
			tp := at.Child("taints").Index(j)
			for _, msg := range utilvalidation.IsQualifiedName(t.Key) {
				errs = append(errs, field.Invalid(tp.Child("key"), t.Key, msg))
			}
			for _, msg := range utilvalidation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, msg))
			}
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect, []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return fmt.Errorf("the cluster cannot be exported to the params ConfigMap (fix the cluster file; the API server would refuse these values on a Node):\n%w", errors.Join(out...))
}
