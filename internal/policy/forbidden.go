package policy

import (
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// forbiddenExpr is true when the pod spec sets a field the API server
// rejects for Windows pods at the model's release
// (winsupport.Model.ForbiddenFields).
func forbiddenExpr(m winsupport.Model) string {
	pod, ctr := m.ForbiddenFieldNames()
	var parts []string
	for _, p := range pod {
		parts = append(parts, setExpr("variables.spec", p))
	}
	var cs []string
	for _, p := range ctr {
		cs = append(cs, setExpr("c", p))
	}
	if len(cs) > 0 {
		parts = append(parts, `variables.containers.exists(c, `+strings.Join(cs, " || ")+`)`)
	}
	if len(parts) == 0 {
		return "false"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// setExpr is the CEL for "the field at the dotted path is set" as the Go
// table means it: a true bool, a non-empty sysctls list, any other value
// present.
func setExpr(base, path string) string {
	chain := base + ".?" + strings.ReplaceAll(path, ".", ".?")
	switch path {
	case "hostPID", "hostIPC":
		return chain + ".orValue(false)"
	case "securityContext.sysctls":
		return "size(" + chain + ".orValue([])) > 0"
	}
	return chain + ".hasValue()"
}

var apiChecks = map[string]exporter{
	"windows-forbidden-field": func(m winsupport.Model) []check {
		if !m.Supports(winsupport.FeaturePodOS) {
			return nil
		}
		f := forbiddenExpr(m)
		return []check{
			{expr: `variables.specOS == 'windows' && ` + f,
				detail: `'fields the API server rejects for a windows pod are set'`},
			{expr: `variables.specOS != 'windows' && variables.os == 'windows' && ` + f, severity: sev(rule.Warning),
				detail: `'Windows workload (from ' + variables.by + ') sets fields the API server rejects as soon as spec.os.name: windows is set'`},
		}
	},
}
