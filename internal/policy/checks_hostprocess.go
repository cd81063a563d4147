package policy

import (
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/winsupport"
)

// hostProcessChecks are the HostProcess rules with CEL that the other
// groups do not hold.
var hostProcessChecks = map[*rule.Rule]exporter{
	rules.HostProcessRootRelativeCommand: func(winsupport.Model) []check {
		msgs := hostProcessExecutables() + `.filter(e, e[1].matches(` + celString(rules.RootRelativeRE) + `) && !(e[2] == 'command' && e[1] in ` + celList(linuxShells) + `))` +
			`.map(e, ` + celf(rules.HostProcessRootPathMsg, "e[0]", "e[1]") + `)`
		return []check{{expr: win + ` && variables.hostProcess && size(` + msgs + `) > 0`, detail: msgs + `.join('; ')`}}
	},
}

// hostProcessExecutables is CEL for the executables
// hostprocess-root-relative-command reads through rules' visitCommands (the
// first item of the container's command, not of args alone, and of each
// exec probe and exec hook): a [where, executable, kind] list, kind
// "command" for the container's own command and empty for the others, per
// container in order.
func hostProcessExecutables() string {
	ctr := celf(svcname.WhereContainer, "c.name")
	items := []string{`(size(c.?command.orValue([])) > 0 ? [[string(` + celf(svcname.WhereCommand, ctr) + `), string(c.command[0]), 'command']] : [])`}
	for _, p := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		items = append(items, `(size(c.?`+p+`.?exec.?command.orValue([])) > 0 ? [[string(`+celf(svcname.WhereProbe, celString(p), ctr)+`), string(c.`+p+`.exec.command[0]), '']] : [])`)
	}
	for _, h := range []string{"postStart", "preStop"} {
		items = append(items, `(size(c.?lifecycle.?`+h+`.?exec.?command.orValue([])) > 0 ? [[string(`+celf(svcname.WhereHook, celString(h), ctr)+`), string(c.lifecycle.`+h+`.exec.command[0]), '']] : [])`)
	}
	return `variables.containers.map(c, ` + strings.Join(items, " + ") + `).flatten()`
}
