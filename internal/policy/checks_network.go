package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

var networkChecks = map[*rule.Rule]exporter{
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
