package rules

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// WindowsServiceSessionAffinity: ClientIP affinity on a Windows Server 2019
// pool.
var WindowsServiceSessionAffinity = &rule.Rule{
	ID:       "windows-service-session-affinity",
	Title:    "Service with sessionAffinity: ClientIP selects Windows pods on Windows Server 2019",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports Services with sessionAffinity: ClientIP whose selector matches a Windows workload in the same namespace when the cluster has Windows pools older than Windows Server 2022 (Windows Server 2019).",
		Why:  "Windows kube-proxy supports ClientIP session affinity only from Windows Server 2022. On older nodes it logs \"Session Affinity is not supported on this version of Windows\" and balances every connection anew, so clients that rely on stickiness (in-memory sessions, ASP.NET without a shared session store) lose their session.",
		Fix:  "Move the Windows workload to Windows Server 2022 or later nodes (pin node.kubernetes.io/windows-build), or make the application independent of stickiness and drop sessionAffinity.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations (sessionAffinity: ClientIP is supported from Windows Server 2022)",
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations (session affinity needed a newer Windows build than Windows Server 2019)",
			"k8s.io/kubernetes v1.36.3 pkg/proxy/winkernel/proxier.go (\"Session Affinity is not supported on this version of Windows\")",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		old := svcPoolsBefore(p, p.Model.ClientIPAffinityFromBuild())
		if len(old) == 0 {
			return
		}
		clientIP := func(svc *corev1.Service) bool { return svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP }
		eachWindowsService(p, clientIP, func(obj *manifest.Object, _ *corev1.Service, ws []rule.Summary) {
			p.Report(obj, rule.Finding{
				Path:    svcPath("sessionAffinity"),
				Message: fmt.Sprintf("sessionAffinity: ClientIP selects Windows pods of %s, but %s; Windows supports ClientIP affinity only from Windows Server 2022", svcRefs(ws), strings.Join(old, ", ")),
				Hint:    "run the workload on Windows Server 2022 or later nodes, or do not rely on session affinity",
			})
		})
	},
}

// svcPoolsBefore describes the cluster's Windows pools whose build is older
// than min: `pool "win2019" runs Windows Server 2019 (10.0.17763)`.
func svcPoolsBefore(p *rule.CorpusPass, min int) []string {
	var out []string
	for _, pool := range p.Cluster.PoolsOf("windows") {
		n := svcBuildNumber(pool.WindowsBuild)
		if n == 0 || n >= min {
			continue
		}
		out = append(out, fmt.Sprintf("pool %q runs %s", pool.Name, svcBuildName(p, pool)))
	}
	return out
}

func svcBuildName(p *rule.CorpusPass, pool cluster.Pool) string {
	if b, ok := p.Model.BuildByNumber(pool.WindowsBuild); ok {
		return b.Name + " (" + pool.WindowsBuild + ")"
	}
	return "build " + pool.WindowsBuild
}

// svcBuildNumber reads the build of "10.0.17763" or "10.0.17763.1234"; 0
// when it cannot.
func svcBuildNumber(s string) int {
	parts := strings.Split(s, ".")
	if len(parts) < 3 {
		return 0
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return 0
	}
	return n
}

// WindowsServiceSessionAffinityTimeout: a sticky time Windows ignores.
var WindowsServiceSessionAffinityTimeout = &rule.Rule{
	ID:       "windows-service-session-affinity-timeout",
	Title:    "Service sets a session affinity timeout for Windows pods",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports Services that set sessionAffinityConfig.clientIP.timeoutSeconds and whose selector matches a Windows workload in the same namespace.",
		Why:  "Windows does not support the maximum session sticky time: kube-proxy programs the Windows load balancer with source-IP distribution and no timeout, so the configured value has no effect on Windows endpoints.",
		Fix:  "Remove timeoutSeconds (the fix does, when asked: it also changes the timeout for Linux endpoints), or keep it only for Services in front of Linux pods.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations (setting service.spec.sessionAffinityConfig.clientIP.timeoutSeconds is not supported on Windows)",
			"k8s.io/kubernetes v1.36.3 pkg/proxy/winkernel/hns.go (source-IP distribution, no sticky time)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		timeout := func(svc *corev1.Service) bool {
			c := svc.Spec.SessionAffinityConfig
			return c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil
		}
		eachWindowsService(p, timeout, func(obj *manifest.Object, _ *corev1.Service, ws []rule.Summary) {
			path := svcPath("sessionAffinityConfig", "clientIP", "timeoutSeconds")
			p.Report(obj, rule.Finding{
				Path:    path,
				Message: fmt.Sprintf("sessionAffinityConfig.clientIP.timeoutSeconds is not supported on Windows and has no effect on the Windows pods of %s", svcRefs(ws)),
				Hint:    "remove timeoutSeconds, or keep it only on Services in front of Linux pods",
				Fix:     &rule.Fix{Title: "remove the session affinity timeout", Edits: []rule.Edit{{Op: rule.Remove, Path: path}}},
			})
		})
	},
}
