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
		{Text: "No such host is known", Service: "windows", Source: srcResolver},
		{Text: "The remote name could not be resolved", Service: "windows", Source: srcResolver},
		{Text: "Could not resolve host", Service: "curl", Source: "curl libcurl-errors CURLE_COULDNT_RESOLVE_HOST (curl.se/libcurl/c/libcurl-errors.html)"},
		{Text: ": no such host", Service: "go", Source: "go net package (DNSError: \"no such host\")"},
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

const srcWinsock = "learn.microsoft.com/windows/win32/winsock/windows-sockets-error-codes-2 (WSAETIMEDOUT 10060: A connection attempt failed because the connected party did not properly respond after a period of time; WSAECONNREFUSED 10061: No connection could be made because the target machine actively refused it)"

// ServiceUnreachable: a Windows pod's connections to a Service time out
// or are refused.
var ServiceUnreachable = &Cause{
	ID: "service-unreachable-from-windows", Title: "The Windows pod's connections time out or are refused",
	Explain: "A container on a Windows node reports connections that time out or are refused. When the name resolved, the traffic is lost in the node's data plane: kube-proxy programs each Service as an HNS load balancer policy and the virtual switch (VFP) applies it; a Service without its load balancer on the node, a missing endpoint, or an OutBoundNAT policy whose exception list misses the pod CIDR, the service CIDR or (for l2bridge) the node subnet sends the packets out NATed to the node's address, where nothing answers. ICMP (ping) proves nothing here: the Windows data plane does not translate it out of the pod network.",
	Steps: []string{
		"Test the Service over TCP from inside the pod with Test-NetConnection, by its fully qualified name and by its ClusterIP.",
		"Check the Service has endpoints (kubectl get endpointslices) and that kube-proxy runs on the node.",
		"On the node, check that an HNS load balancer policy exists for the Service's ClusterIP (Get-HnsPolicyList) and that its endpoints are the Service's pods.",
		"Check the OutBoundNAT exceptions of the node's CNI config cover the pod CIDR, the service CIDR and, for l2bridge, the node subnet (winkube nodeconfig check reports cni-outbound-nat-exceptions).",
		"Inspect the pod's switch port rules with vfpctrl: a NAT rule matching the Service's traffic shows it leaving NATed.",
	},
	Commands: []Command{
		kubectl(`kubectl exec -n {ns} {pod} -c {container} -- powershell -Command "Test-NetConnection SERVICE.NAMESPACE.svc.cluster.local -Port PORT"`),
		kubectl("kubectl get svc,endpointslices -A -o wide"),
		kubectl("kubectl get pods -A -o wide --field-selector spec.nodeName={node}"),
		onNode("Get-HnsPolicyList | Select-Object Id, @{n='VIPs';e={$_.Policies.VIPs}}, @{n='Endpoints';e={$_.References}}"),
		onNode(`Get-Content C:\etc\cni\net.d\*`),
		onNode("vfpctrl /list-vmswitch-port"),
		onNode("vfpctrl /port PORT-NAME /list-rule"),
	},
	Patterns: []Pattern{
		{Text: "connected party did not properly respond after a period of time", Service: "windows", Source: srcWinsock},
		{Text: "No connection could be made because the target machine actively refused it", Service: "windows", Source: srcWinsock},
		{Text: "Unable to connect to the remote server", Service: "windows", Source: "learn.microsoft.com/dotnet/api/system.net.webexceptionstatus (ConnectFailure)"},
	},
	Sources: []string{
		srcWinsock,
		"kubernetes.io/docs/concepts/services-networking/windows-networking (Load balancing and Services; Limitations: ICMP)",
		"kubernetes.io/docs/tasks/debug/debug-cluster/windows, Network troubleshooting (OutBoundNAT ExceptionList in the CNI config; ICMP to external hosts)",
	},
}

// serviceUnreachable matches on Windows nodes only: the runbook is
// Windows'.
func serviceUnreachable(c *podCtx) (hit, bool) {
	if c.nodeOS != "windows" {
		return hit{}, false
	}
	return found(72, c.find(ServiceUnreachable.Patterns, func(e Evidence) bool { return !e.sandbox }))
}
