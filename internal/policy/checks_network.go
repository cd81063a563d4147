package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
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
