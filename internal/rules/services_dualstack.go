package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// WindowsServiceDualStack: a Service that asks for both IP families in
// front of Windows pods.
var WindowsServiceDualStack = &rule.Rule{
	ID:       "windows-service-dual-stack",
	Title:    "Dual-stack Service selects Windows pods",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports Services that ask for both IP families (ipFamilyPolicy: RequireDualStack, or PreferDualStack with both families listed in ipFamilies) and whose selector matches a Windows workload in the same namespace. A PreferDualStack Service that lists one family or none is not reported: on a single-stack cluster it gets one family. When a Windows pool of the cluster profile runs an overlay network (networkMode: overlay, or cni win-overlay), the message names it: there Windows pods have no dual-stack at all.",
		Why:  "Kubernetes supports dual-stack on Windows for pods and nodes with single-family Services, and only on l2bridge networks: overlay (VXLAN) networks on Windows do not support dual-stack, and IPv6 between Windows pods on overlay networks is not supported. A dual-stack Service in front of Windows pods is outside what Windows supports, while the same Service in front of Linux pods works.",
		Fix:  "Serve Windows pods through a single-family Service (ipFamilyPolicy: SingleStack with one family, IPv4 on an overlay pool); keep dual-stack Services for Linux backends.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dual-stack, Windows support (dual-stack IPv4/IPv6 networking for pods and nodes with single-family services is supported; dual-stack with l2bridge networks; overlay (VXLAN) networks on Windows do not support dual-stack networking)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (IPv6 communication between Windows pods connected to overlay networks is not supported)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		eachWindowsService(p, dualStack, func(obj *manifest.Object, _ *corev1.Service, ws []rule.Summary) {
			msg := fmt.Sprintf("Service asks for both IP families and selects Windows pods of %s; Windows supports dual-stack pods and nodes only with single-family Services", svcRefs(ws))
			if ov := overlayPools(p); len(ov) > 0 {
				msg += fmt.Sprintf(", and %s an overlay network, where Windows does not support dual-stack at all", ov)
			}
			p.Report(obj, rule.Finding{
				Path:    svcPath("ipFamilyPolicy"),
				Message: msg,
				Hint:    "use ipFamilyPolicy: SingleStack with one family for the Service in front of Windows pods",
			})
		})
	},
}

// dualStack: the Service asks for both families.
func dualStack(svc *corev1.Service) bool {
	s := svc.Spec
	if s.IPFamilyPolicy == nil {
		return false
	}
	switch *s.IPFamilyPolicy {
	case corev1.IPFamilyPolicyRequireDualStack:
		return true
	case corev1.IPFamilyPolicyPreferDualStack:
		return len(s.IPFamilies) == 2
	}
	return false
}

// overlayPools names the Windows pools whose network mode is overlay:
// `pool "win" runs` or `pools "a", "b" run`; "" when none is known to.
func overlayPools(p *rule.CorpusPass) string {
	var names []string
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if pool.Mode() == "overlay" {
			names = append(names, fmt.Sprintf("%q", pool.Name))
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "pool " + names[0] + " runs"
	}
	return "pools " + strings.Join(names, ", ") + " run"
}
