package doctor

import (
	"fmt"
	"regexp"
	"strings"
)

const (
	srcWinDNS   = "kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (one DNS suffix, names with a dot treated as FQDN; Resolve-DNSName recommended)"
	srcWinNetTS = "kubernetes.io/docs/concepts/services-networking/windows-networking, Network modes (Pod → Service (PQDN, but only if there are no \".\"))"
	srcResolver = "learn.microsoft.com/windows/win32/winsock/windows-sockets-error-codes-2 (WSAHOST_NOT_FOUND 11001: No such host is known); learn.microsoft.com/dotnet/api/system.net.webexceptionstatus (NameResolutionFailure: The remote name could not be resolved)"
)

// DNSResolutionFailure: a name the pod could not resolve, checked against
// Windows' single-suffix rule.
var DNSResolutionFailure = &Cause{
	ID: "dns-resolution-failure", Title: "A name the pod connects to does not resolve",
	Explain: "The pod's probe or container reports that a host name could not be resolved. On Windows a pod has one DNS suffix, its namespace's (shop.svc.cluster.local), and treats every name with a dot as fully qualified: backend and backend.shop.svc.cluster.local resolve, backend.shop and backend.shop.svc do not, though they do on Linux. A name that does not resolve even fully qualified points to the Service (wrong name or namespace) or to cluster DNS not reachable from the pod.",
	Steps: []string{
		"Read the name in the evidence; if it has a dot but does not end in .svc.<cluster domain>, write the fully qualified name (service.namespace.svc.cluster.local) in the pod's config (winkube lint reports these as windows-dns-partial-name).",
		"Resolve the name from inside the pod with Resolve-DnsName, and the fully qualified one; ipconfig /all shows the pod's single DNS suffix and its DNS server.",
		"Check that the Service exists in that namespace and has endpoints.",
		"If no name resolves, check that the pod reaches the cluster DNS Service over TCP and UDP 53 (Test-NetConnection), and the HNS load balancer policy for the DNS Service on the node (Get-HnsPolicyList).",
	},
	Commands: []Command{
		kubectl(`kubectl exec -n {ns} {pod} -c {container} -- powershell -Command "Resolve-DnsName NAME; Resolve-DnsName NAME.svc.cluster.local"`),
		kubectl(`kubectl exec -n {ns} {pod} -c {container} -- ipconfig /all`),
		kubectl("kubectl get svc,endpointslices -A -o wide"),
		kubectl(`kubectl exec -n {ns} {pod} -c {container} -- powershell -Command "Test-NetConnection kube-dns.kube-system.svc.cluster.local -Port 53"`),
		onNode("Get-HnsPolicyList | Where-Object { $_.Policies.VIPs } | Select-Object Id, @{n='VIPs';e={$_.Policies.VIPs}}"),
	},
	Patterns: []Pattern{
		{Text: "No such host is known", Runtime: "windows", Source: srcResolver},
		{Text: "The remote name could not be resolved", Runtime: "windows", Source: srcResolver},
		{Text: "Could not resolve host", Runtime: "curl", Source: "curl libcurl-errors CURLE_COULDNT_RESOLVE_HOST (curl.se/libcurl/c/libcurl-errors.html)"},
		{Text: ": no such host", Runtime: "go", Source: "go net package (DNSError: \"no such host\")"},
	},
	Sources: []string{srcWinDNS, srcWinNetTS, srcResolver},
}

// Names as resolvers quote them.
var unresolvedName = []*regexp.Regexp{
	regexp.MustCompile(`(?i)could not be resolved:\s*'([^']+)'`),
	regexp.MustCompile(`(?i)could not resolve host:\s*([^\s:;,'"]+)`),
	regexp.MustCompile(`(?i)lookup ([^\s:]+)(?: on \S+)?: no such host`),
}

// dnsFailure matches a name resolution error. It is most likely the cause,
// and its detail names the fix, when the pod is on Windows and the name is
// partially qualified.
func dnsFailure(c *podCtx) (hit, bool) {
	h, ok := found(75, c.find(DNSResolutionFailure.Patterns, func(e Evidence) bool { return !e.sandbox }))
	if !ok {
		return h, false
	}
	for _, e := range h.evidence {
		name := quotedName(e.Message)
		if name == "" {
			continue
		}
		fqdn, partial := partiallyQualified(name, c.pod.Namespace)
		switch {
		case partial && c.nodeOS == "windows":
			h.score = 92
			h.detail = fmt.Sprintf("%q is partially qualified: a Windows pod resolves names without a dot (through its namespace's suffix) and fully qualified names only; use %s", name, fqdn)
		case partial:
			h.detail = fmt.Sprintf("%q does not resolve; on a Windows node it would not resolve either way (use %s)", name, fqdn)
		default:
			h.detail = fmt.Sprintf("%q does not resolve", name)
		}
		return h, true
	}
	return h, true
}

func quotedName(msg string) string {
	for _, re := range unresolvedName {
		if m := re.FindStringSubmatch(msg); m != nil {
			return strings.TrimSuffix(m[1], ".")
		}
	}
	return ""
}

// partiallyQualified reports whether name looks like a Service name with
// a dot that is not fully qualified (svc.ns, svc.ns.svc), and its fully
// qualified form in the default cluster domain.
func partiallyQualified(name, podNamespace string) (string, bool) {
	labels := strings.Split(strings.ToLower(name), ".")
	switch {
	case len(labels) == 3 && labels[2] == "svc":
	case len(labels) == 2 && !strings.Contains(labels[1], "-") && len(labels[1]) > 0 && !knownTLD(labels[1]):
	default:
		return "", false
	}
	return labels[0] + "." + labels[1] + ".svc.cluster.local", true
}

// knownTLD: two-label names under these are public names, not svc.ns.
func knownTLD(l string) bool {
	switch l {
	case "com", "net", "org", "io", "dev", "app", "cloud", "local", "internal", "corp", "lan", "home", "azure", "windows", "microsoft":
		return true
	}
	return len(l) == 2 // country codes
}
