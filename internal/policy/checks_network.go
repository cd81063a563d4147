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
		msgs := ndots + `.map(o, 'dnsConfig option ndots' + (has(o.value) ? ':' + o.value : '') + ' has no effect on Windows: a Windows pod treats every name with a dot as fully qualified')` +
			` + (size(` + searches + `) > 0 ? ['dnsConfig searches ' + ` + searches + `.map(d, '"' + d + '"').join(', ') + ' never expand a name on Windows: a Windows pod has one DNS suffix, its namespace\'s'] : [])`
		return []check{{expr: win + ` && !variables.hostProcess && ` + dns + `.hasValue() && (size(` + ndots + `) > 0 || size(` + searches + `) > 0)`,
			detail: `(` + msgs + `).join('; ')`}}
	},
}
