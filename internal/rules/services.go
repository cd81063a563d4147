package rules

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

var serviceRules = []*rule.Rule{
	WindowsServiceExternalTrafficLocal,
	WindowsServiceSessionAffinity,
	WindowsServiceSessionAffinityTimeout,
	WindowsServiceIPv6SingleStack,
	WindowsServiceDualStack,
	WindowsDNSConfigIgnored,
	WindowsNodePortFromNode,
	WindowsHostProcessClusterDNS,
	WindowsDNSPartialName,
	WindowsDNSPartialNameConfig,
	WindowsNetworkPolicyNotEnforced,
	WindowsNetworkPolicyUntranslated,
	WindowsICMPOutbound,
	WindowsServiceBackendLimit,
	GMSAMissingCredentialSpecName,
	WindowsRunAsNonRootAdministrator,
	WindowsRunAsNonRootNotEnforced,
	WindowsContainerPortLoopback,
}

// WindowsServiceExternalTrafficLocal: externalTrafficPolicy: Local in front
// of Windows pods.
var WindowsServiceExternalTrafficLocal = &rule.Rule{
	ID:       "windows-service-external-traffic-local",
	Title:    "Service with externalTrafficPolicy: Local selects Windows pods",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports Services with externalTrafficPolicy: Local whose selector matches the pod template labels of a Windows workload in the same namespace, unless every Windows pool of the cluster profile says kube-proxy runs with DSR (kubeProxyDSR: true); pools that say false are named.",
		Why:  "On Windows, kube-proxy implements the Local policy with Direct Server Return, which not every CNI configuration supports; where DSR is unavailable kube-proxy silently drops the policy, so the client IP is not preserved and traffic may take an extra hop. Older Windows releases did not support the Local policy at all.",
		Fix:  "Use externalTrafficPolicy: Cluster for Services in front of Windows pods, or confirm that the Windows nodes' CNI and kube-proxy run with DSR enabled.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations (Windows kube-proxy does not support externalTrafficPolicy: Local with all CNI configurations)",
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations (Local Traffic Policy and DSR mode listed as unsupported)",
			"k8s.io/kubernetes v1.36.3 pkg/proxy/winkernel/proxier.go newServiceInfo (the Local policy is DSR, turned off when DSR is unsupported)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (Local Traffic Policy in non-DSR mode is not supported) and Windows Service Settings (client IP preservation: externalTrafficPolicy Local with DSR enabled in kube-proxy)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		noDSR, allDSR := poolsWithoutDSR(p)
		if allDSR {
			return
		}
		local := func(svc *corev1.Service) bool {
			return svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
		}
		eachWindowsService(p, local, func(obj *manifest.Object, _ *corev1.Service, ws []rule.Summary) {
			msg := fmt.Sprintf("externalTrafficPolicy: Local selects Windows pods of %s; Windows kube-proxy honours it only with Direct Server Return, which not every CNI configuration supports", svcRefs(ws))
			if len(noDSR) > 0 {
				msg = fmt.Sprintf("externalTrafficPolicy: Local selects Windows pods of %s, but kube-proxy runs without Direct Server Return on %s; Windows does not support the Local policy in non-DSR mode", svcRefs(ws), strings.Join(noDSR, ", "))
			}
			p.Report(obj, rule.Finding{
				Path:    "spec.externalTrafficPolicy",
				Message: msg,
				Hint:    "use externalTrafficPolicy: Cluster, or make sure kube-proxy on the Windows nodes runs with DSR (winkernel.enableDSR: true); say kubeProxyDSR: true on the pool when it does",
			})
		})
	},
}

// poolsWithoutDSR names the Windows pools whose profile says kube-proxy
// runs without DSR; all is set when every Windows pool says it runs with
// it.
func poolsWithoutDSR(p *rule.CorpusPass) (names []string, all bool) {
	pools := p.Cluster.PoolsOf("windows")
	all = len(pools) > 0
	for _, pool := range pools {
		switch {
		case pool.KubeProxyDSR == nil:
			all = false
		case !*pool.KubeProxyDSR:
			all = false
			names = append(names, fmt.Sprintf("pool %q", pool.Name))
		}
	}
	return names, all
}

// svcOf returns the typed Service of obj, or nil.
func svcOf(obj *manifest.Object) *corev1.Service {
	svc, _ := obj.Typed.(*corev1.Service)
	return svc
}

// eachWindowsService calls fn for each Service of the input that want
// accepts and whose selector matches Windows workloads
// (svcWindowsBackends), with them.
func eachWindowsService(p *rule.CorpusPass, want func(*corev1.Service) bool, fn func(obj *manifest.Object, svc *corev1.Service, ws []rule.Summary)) {
	for _, obj := range p.Services {
		svc := svcOf(obj)
		if svc == nil || !want(svc) {
			continue
		}
		if ws := svcWindowsBackends(p, obj, svc); len(ws) > 0 {
			fn(obj, svc, ws)
		}
	}
}

// svcWindowsBackends returns the Windows workloads whose pod template labels
// the Service's selector matches, in the Service's namespace. A Service
// without a selector has its endpoints managed by hand and matches none.
func svcWindowsBackends(p *rule.CorpusPass, obj *manifest.Object, svc *corev1.Service) []rule.Summary {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	ns := svcNamespace(obj.Namespace)
	var out []rule.Summary
	for _, w := range p.Workloads {
		if w.OS == target.Windows && svcNamespace(w.Namespace) == ns && svcSelects(svc.Spec.Selector, w.Labels) {
			out = append(out, w)
		}
	}
	return out
}

// svcNamespace is the namespace an object without one is created in.
func svcNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// svcSelects reports whether every key of the selector is in labels with the
// same value, the way a Service selects its endpoints' pods.
func svcSelects(sel, labels map[string]string) bool {
	for k, v := range sel {
		if l, ok := labels[k]; !ok || l != v {
			return false
		}
	}
	return true
}

// svcRefs names workloads for messages: "Deployment/iis", sorted, at most three.
func svcRefs(ws []rule.Summary) string {
	var names []string
	for _, w := range ws {
		names = append(names, w.Kind+"/"+w.Name)
	}
	sort.Strings(names)
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

func svcPath(names ...string) string {
	return rule.Path(field.NewPath("spec", names...))
}
