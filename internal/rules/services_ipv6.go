package rules

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// WindowsServiceIPv6SingleStack: an IPv6-only Service in front of Windows
// pods.
var WindowsServiceIPv6SingleStack = &rule.Rule{
	ID:       "windows-service-ipv6-single-stack",
	Title:    "IPv6 single-stack Service selects Windows pods",
	Severity: rule.Error,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports Services that are IPv6 single-stack (ipFamilies: [IPv6] with ipFamilyPolicy SingleStack or unset, or, without ipFamilies, an IPv6 clusterIP) and whose selector matches a Windows workload in the same namespace.",
		Why:  "Kubernetes on Windows does not support single-stack IPv6-only networking; it supports dual-stack IPv4/IPv6 pods and nodes with single-family Services, on l2bridge networks only (overlay networks carry no IPv6 between Windows pods). Windows pods behind an IPv6-only Service get no traffic through it. When a Windows pool of the cluster profile runs an overlay network (networkMode: overlay, or cni win-overlay), the message names it.",
		Fix:  "Serve Windows pods through a single-stack IPv4 Service (ipFamilies: [IPv4], ipFamilyPolicy: SingleStack). A dual-stack Service is no way out: Windows supports single-family Services only (windows-service-dual-stack).",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dual-stack, Windows support (Kubernetes on Windows does not support single-stack \"IPv6-only\" networking; dual-stack pods and nodes with single-family services, with l2bridge networks; overlay (VXLAN) networks do not support dual-stack)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (IPv6 communication between Windows pods connected to overlay networks is not supported)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		isIPv6Only := func(svc *corev1.Service) bool { _, ok := ipv6Only(svc); return ok }
		eachWindowsService(p, isIPv6Only, func(obj *manifest.Object, svc *corev1.Service, ws []rule.Summary) {
			path, _ := ipv6Only(svc)
			msg := fmt.Sprintf("Service is IPv6 single-stack and selects Windows pods of %s; Kubernetes on Windows does not support IPv6-only networking", svcRefs(ws))
			if ov := overlayPools(p); ov != "" {
				msg += fmt.Sprintf(", and %s an overlay network, where IPv6 between Windows pods is not supported", ov)
			}
			p.Report(obj, rule.Finding{
				Path:    path,
				Message: msg,
				Hint:    "use a single-stack IPv4 Service (ipFamilies: [IPv4], ipFamilyPolicy: SingleStack)",
			})
		})
	},
}

// ipv6Only reports whether the Service is IPv6 single-stack and the field
// that makes it so. The API server derives the family from clusterIP when
// ipFamilies is empty; a dual-stack policy asks for both families.
func ipv6Only(svc *corev1.Service) (string, bool) {
	s := svc.Spec
	if s.IPFamilyPolicy != nil && *s.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		return "", false
	}
	if len(s.IPFamilies) > 0 {
		return svcPath("ipFamilies"), len(s.IPFamilies) == 1 && s.IPFamilies[0] == corev1.IPv6Protocol
	}
	if a, err := netip.ParseAddr(s.ClusterIP); err == nil && a.Is6() && !a.Is4In6() {
		return svcPath("clusterIP"), true
	}
	return "", false
}
