package policy

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/winsupport"
)

// networkChecks are the networking rules one workload decides.
var networkChecks = map[*rule.Rule]exporter{
	rules.WindowsDNSConfigIgnored: func(winsupport.Model) []check {
		// rules.WindowsDNSConfigIgnored: each ndots option, then the
		// searches under ClusterFirst (the default), not on HostProcess.
		dns := `variables.spec.?dnsConfig`
		ndots := dns + `.?options.orValue([]).filter(o, o.?name.orValue('') == 'ndots')`
		searches := `(variables.spec.?dnsPolicy.orValue('ClusterFirst') == 'ClusterFirst' ? ` + dns + `.?searches.orValue([]) : [])`
		msgs := ndots + `.map(o, ` + celf(rules.DNSNdotsMsg, `(has(o.value) ? ':' + o.value : '')`) + `)` +
			` + (size(` + searches + `) > 0 ? [` + celf(rules.DNSSearchesMsg, searches+`.map(d, '"' + d + '"').join(', ')`) + `] : [])`
		return []check{{expr: win + ` && !variables.hostProcess && ` + dns + `.hasValue() && (size(` + ndots + `) > 0 || size(` + searches + `) > 0)`,
			detail: `(` + msgs + `).join('; ')`}}
	},
	rules.WindowsDNSPartialName: func(winsupport.Model) []check {
		// The .svc forms and kubernetes.default only: service.namespace
		// is a Service name only where the input holds the Service, and
		// lint, given the request's object alone, does not report it.
		return []check{{expr: win + ` && !variables.hostProcess && size(variables.dnsPartialMsgs) > 0`, detail: `variables.dnsPartialMsgs.join('; ')`}}
	},
	rules.WindowsHostProcessClusterDNS: func(winsupport.Model) []check {
		return []check{{expr: win + ` && variables.hostProcess && variables.spec.?dnsPolicy.orValue('') == 'ClusterFirstWithHostNet' && size(variables.hostProcessDNSMsgs) > 0`,
			detail: `variables.hostProcessDNSMsgs.join('; ')`}}
	},
	rules.WindowsNodePortFromNode: func(winsupport.Model) []check {
		return []check{{expr: win + ` && variables.hostProcess && size(variables.nodePortMsgs) > 0`, detail: `variables.nodePortMsgs.join('; ')`}}
	},
	rules.WindowsICMPOutbound: func(winsupport.Model) []check {
		return []check{{expr: win + ` && !variables.hostProcess && size(variables.icmpPools) > 0 && size(variables.icmpMsgs) > 0`, detail: `variables.icmpMsgs.join('; ')`}}
	},
	rules.WindowsContainerPortLoopback: func(winsupport.Model) []check {
		// Per container, command then args: the arguments binding a port
		// the container declares to the loopback (rules.LoopbackListenRE,
		// whose last submatch, the trailing digits, is the port).
		ports := `c.?ports.orValue([]).map(p, string(p.containerPort))`
		bound := `(c.?command.orValue([]) + c.?args.orValue([])).filter(a, a.matches(` + celString(rules.LoopbackListenRE) + `) && a.find('[0-9]+$') in ` + ports + `)`
		msgs := `variables.containers.map(c, ` + bound + `.map(a, ` + celf(rules.LoopbackPortMsg, `c.name`, `a`, `a.find('[0-9]+$')`) + `)).flatten()`
		return []check{{expr: win + ` && !variables.hostProcess && !` + hostNetwork + ` && size(` + msgs + `) > 0`,
			detail: msgs + `.join('; ')`}}
	},
}

// Service names as svcname.Find reads them: a Service label (DNS-1035)
// and namespace labels (DNS-1123), lower case, at most 63 characters.
const (
	svcLabelRE = `[a-z]([-a-z0-9]{0,61}[a-z0-9])?`
	dnsLabelRE = `[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?`
	// hostTokenRE is svcname's hostTokens: a run of name characters
	// with what precedes it, which must not be a single '/' (a path
	// segment): the start, "//" or another character.
	hostTokenRE = `(?:^|//|[^a-zA-Z0-9_./-])[a-zA-Z0-9_.-]+`
)

// hostTokens is CEL for svcname's hostTokens over the CEL string v: the
// runs of name characters that are not path segments, trailing dots
// trimmed, without an empty label.
func hostTokens(v string) string {
	return v + `.findAll(` + celString(hostTokenRE) + `).map(t, t.find('[a-zA-Z0-9_.-]+$').find('^[a-zA-Z0-9_.-]*[a-zA-Z0-9_-]'))` +
		`.filter(t, t != '' && !t.contains('..') && !t.startsWith('.'))`
}

// alwaysPartial is CEL for a token t that svcname.Find calls a partial
// name that is a Service name whatever the input holds (Name.Always):
// kubernetes.default, service.namespace.svc, and
// service.namespace.svc.<the domain's first label> when the domain has
// more than one.
func alwaysPartial(t string) string {
	return strings.ReplaceAll(`(t == 'kubernetes.default' || t.matches(`+celString(`^`+svcLabelRE+`\.`+dnsLabelRE+`\.svc$`)+`) || `+
		`(t.matches(`+celString(`^`+svcLabelRE+`\.`+dnsLabelRE+`\.svc\.`+dnsLabelRE+`$`)+`) && t.endsWith('.svc.' + variables.domainFirst) && variables.domainFirst != variables.domain))`, "t", t)
}

// qualified is CEL for a token t that svcname.Find calls Qualified:
// service.namespace.svc.<domain>, every label valid.
func qualified(t string) string {
	return strings.ReplaceAll(`(t.matches(`+celString(`^`+svcLabelRE+`(\.`+dnsLabelRE+`)*$`)+`) && t.find('^[^.]*\\.[^.]*\\.svc\\.') != '' && t.find('^[^.]*\\.[^.]*\\.svc\\.') + variables.domain == t)`, "t", t)
}

// icmpOutside is CEL for rules' outsideCluster over the target t: a
// global unicast address outside netip's private ranges, or a name with
// a dot, of valid labels, whose last label is no number and that is no
// cluster, .local, .svc or .internal name.
// ('$' + '(' keeps the two apart: Kyverno would read "$(" in a
// ClusterPolicy as a variable reference.)
func icmpOutside(t string) string {
	private := celList([]string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"})
	name := `[` + t + `.lowerAscii()].map(x, x.endsWith('.') ? x.substring(0, size(x) - 1) : x).all(x, x.contains('.') && !x.startsWith('$') && !x.contains('$' + '(') && ` +
		`x.matches(` + celString(`^`+dnsLabelRE+`(\.`+dnsLabelRE+`)*$`) + `) && !x.matches('\\.[0-9]+$') && !x.endsWith('.' + variables.domain) && ` +
		`!x.endsWith('.local') && !x.endsWith('.svc') && !x.endsWith('.internal'))`
	return `(isIP(` + t + `) ? (ip(` + t + `).isGlobalUnicast() && !` + private + `.exists(c, cidr(c).containsIP(ip(` + t + `)))) : ` + name + `)`
}

// icmpPings is CEL for rules' outboundPing over the words ws of one
// command line: [command, target] of each ping, ping.exe,
// Test-Connection or Test-NetConnection (without -Port or
// -CommonTCPPort) whose target is outside the cluster, in order.
func icmpPings(ws string) string {
	name := `w.lowerAscii().find('[^/\\\\]*$')`
	rest := ws + `.slice(i + 1, size(` + ws + `))`
	asks := `[a.lowerAscii()].exists(l, l == '-port' || l == '-commontcpport' || l.startsWith('-port:'))`
	// pingTarget: the first argument that is neither an option nor a
	// number, or the value of -ComputerName / -TargetName. (Its skipping
	// of an option's numeric value changes nothing: numbers are skipped.)
	opt := `(a.startsWith('-') || a.startsWith('/'))`
	target := `[` + rest + `].map(r, r.transformList(j, a, ` + opt + ` ? (a.lowerAscii() in ['-computername', '-targetname'] && j + 1 < size(r)) : !a.matches('^[0-9]+$'), ` + opt + ` ? r[j + 1] : a))` +
		`.map(c, size(c) > 0 ? c[0] : '')[0]`
	return ws + `.transformList(i, w, ` + name + ` in ['ping', 'ping.exe', 'test-connection', 'test-netconnection'] && !(` + name + ` == 'test-netconnection' && ` + rest + `.exists(a, ` + asks + `)), [string(w), string(` + target + `)])` +
		`.filter(p, p[1] != '' && ` + icmpOutside("p[1]") + `)`
}

// networkVariables are what the networking rules read: the strings
// svcname.Visit visits, the command lines rules' visitCommands visits,
// and each rule's messages (a variable, so that the validation and its
// message read one evaluation).
func networkVariables() []variable {
	ctr := celf(svcname.WhereContainer, "c.name")
	probes := []string{"livenessProbe", "readinessProbe", "startupProbe"}
	hooks := []string{"postStart", "preStop"}
	// svcname.Visit: [where, value] of each command and args item, env
	// value, exec probe and exec hook item, per container in order.
	var visit []string
	visit = append(visit,
		`c.?command.orValue([]).map(s, [string(`+celf(svcname.WhereCommand, ctr)+`), string(s)])`,
		`c.?args.orValue([]).map(s, [string(`+celf(svcname.WhereArgs, ctr)+`), string(s)])`,
		`c.?env.orValue([]).filter(e, e.?value.orValue('') != '').map(e, [string(`+celf(svcname.WhereEnv, "e.name", ctr)+`), string(e.value)])`)
	// rules' visitCommands: [where, the line] of command and args
	// together, then each exec probe and exec hook.
	lines := []string{`(size(c.?command.orValue([])) + size(c.?args.orValue([])) > 0 ? [[string(` + ctr + `), string((c.?command.orValue([]) + c.?args.orValue([])).join(' '))]] : [])`}
	for _, p := range probes {
		where := celf(svcname.WhereProbe, celString(p), ctr)
		visit = append(visit, `c.?`+p+`.?exec.?command.orValue([]).map(s, [string(`+where+`), string(s)])`)
		lines = append(lines, `(c.?`+p+`.?exec.hasValue() ? [[string(`+where+`), string(c.?`+p+`.?exec.?command.orValue([]).join(' '))]] : [])`)
	}
	for _, h := range hooks {
		where := celf(svcname.WhereHook, celString(h), ctr)
		visit = append(visit, `c.?lifecycle.?`+h+`.?exec.?command.orValue([]).map(s, [string(`+where+`), string(s)])`)
		lines = append(lines, `(c.?lifecycle.?`+h+`.?exec.hasValue() ? [[string(`+where+`), string(c.?lifecycle.?`+h+`.?exec.?command.orValue([]).join(' '))]] : [])`)
	}
	tokens := hostTokens("s[1]")
	fqdn := `t.find('^[^.]*\\.[^.]*') + '.svc.' + variables.domain`
	inRange := fmt.Sprintf(`int(m.find('[0-9]{5}$')) >= %d && int(m.find('[0-9]{5}$')) <= %d`, rules.NodePortMin, rules.NodePortMax)
	hit := `s[1].findAll(` + celString(rules.LoopbackNodePortRE) + `).filter(m, ` + inRange + `)`
	return []variable{
		{"domain", `params.data.clusterDomain`},
		{"domainFirst", `variables.domain.split('.')[0]`},
		{"svcStrings", `variables.containers.map(c, ` + strings.Join(visit, " + ") + `).flatten()`},
		{"cmdLines", `variables.containers.map(c, ` + strings.Join(lines, " + ") + `).flatten()`},
		// rules.WindowsDNSPartialName without the input's Services: the
		// names that are Service names whatever the input holds.
		{"dnsPartialNamed", `variables.svcStrings.map(s, ` + tokens + `.filter(t, ` + alwaysPartial("t") + `).map(t, ` + celf(rules.DNSPartialNameItem, "t", fqdn) + `))`},
		{"dnsPartialMsgs", `variables.svcStrings.transformList(i, s, size(variables.dnsPartialNamed[i]) > 0, ` + celf(rules.DNSPartialNameMsg, "s[0]", `variables.dnsPartialNamed[i].join(', ')`) + `)`},
		// rules.WindowsHostProcessClusterDNS, likewise.
		{"hostProcessDNSNamed", `variables.svcStrings.map(s, ` + tokens + `.filter(t, ` + alwaysPartial("t") + ` || ` + qualified("t") + `).map(t, '"' + t + '"'))`},
		{"hostProcessDNSMsgs", `variables.svcStrings.transformList(i, s, size(variables.hostProcessDNSNamed[i]) > 0, ` + celf(rules.HostProcessDNSMsg, "s[0]", `variables.hostProcessDNSNamed[i].join(', ')`) + `)`},
		// rules.WindowsNodePortFromNode: the first loopback NodePort of
		// each string.
		{"nodePortMsgs", `variables.svcStrings.filter(s, size(` + hit + `) > 0).map(s, [` + hit + `[0]].map(m, ` +
			celf(rules.NodePortFromNodeMsg, "s[0]", `m.find('(?i)(localhost|127\\.0\\.0\\.1|\\[::1\\])')`, `int(m.find('[0-9]{5}$'))`) + `)[0])`},
		// rules.WindowsICMPOutbound: the first Windows pool that drops
		// outbound ICMP, then the first outside ping of each line.
		{"icmpPools", `variables.winPools.filter(p, size(p) > 7 && p[7] == 'drops')`},
		{"icmpPings", `variables.cmdLines.map(l, ` + icmpPings(`l[1].findAll(`+celString(rules.CommandWordRE)+`)`) + `)`},
		{"icmpMsgs", `variables.cmdLines.transformList(i, l, size(variables.icmpPings[i]) > 0, ` +
			celf(rules.ICMPOutboundMsg, "l[0]", "variables.icmpPings[i][0][0]", "variables.icmpPings[i][0][1]", "variables.icmpPools[0][0]", "variables.icmpPools[0][5]") + `)`},
	}
}
