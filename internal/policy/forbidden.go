package policy

import (
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
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

// forbiddenDetail is the API server's detail for a forbidden field
// (winsupport's table); TestForbiddenDetailsAgree holds it to the model.
func forbiddenDetail(path string) string {
	if path == "resources" {
		return "may not be set for a windows pod"
	}
	return "cannot be set for a windows pod"
}

// forbiddenPaths is CEL for the list of the field paths set that the API
// server forbids for a Windows pod, in winsupport.Model.ForbiddenFields
// order (the pod's fields, then each container's), each with its detail:
// [path, detail].
func forbiddenPaths(m winsupport.Model) string {
	pod, ctr := m.ForbiddenFieldNames()
	parts := []string{"[]"}
	for _, p := range pod {
		parts = append(parts, `(`+setExpr("variables.spec", p)+` ? [[variables.fieldPath + '.`+p+`', `+celString(forbiddenDetail(p))+`]] : [])`)
	}
	var cs []string
	for _, p := range ctr {
		cs = append(cs, `(`+setExpr("c", p)+` ? [[variables.containerPaths[i] + '.`+p+`', `+celString(forbiddenDetail(p))+`]] : [])`)
	}
	if len(cs) > 0 {
		parts = append(parts, `variables.containers.transformList(i, c, `+strings.Join(cs, " + ")+`).flatten()`)
	}
	return "(" + strings.Join(parts, " + ") + ")"
}

var apiChecks = map[*rule.Rule]exporter{
	rules.WindowsForbiddenField: func(m winsupport.Model) []check {
		if !m.Supports(winsupport.FeaturePodOS) {
			return nil
		}
		f := forbiddenExpr(m)
		fields := forbiddenPaths(m)
		return []check{
			// The API server rejects these itself before admission
			// policies run; the policy says what it would.
			{expr: `variables.specOS == 'windows' && ` + f,
				detail: fields + `.map(x, x[0] + ': Forbidden: ' + x[1]).join('; ')`},
			{expr: `variables.specOS != 'windows' && variables.os == 'windows' && ` + f, severity: sev(rule.Warning),
				detail: fields + `.map(x, x[0] + ': rejected as soon as spec.os.name: windows is set (' + x[1] + ')').join('; ')`},
		}
	},
}
