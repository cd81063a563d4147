package policy

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// variable is a named CEL expression of a policy; later ones may read
// earlier ones as variables.<name>.
type variable struct{ name, expr string }

// osKeys are the node labels that say something about a node's OS; the
// engine reads only these from a workload's scheduling constraints
// (internal/target), the managed platforms' OS labels included.
var osKeys = append([]string{cluster.LabelOS, cluster.LabelOSBeta, cluster.LabelWindowsBuild}, winsupport.CloudOSLabelKeys()...)

// celList renders strings as a CEL list literal.
func celList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = celString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// celString renders s as a single-quoted CEL string literal. Control
// characters (a carriage return in a cluster file's value, say) are
// escaped: CEL's grammar allows none raw in a quoted string.
func celString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// workloadVariables derive, once per request, what internal/target derives
// for the engine. They need params (the cluster profile, see params.go).
func workloadVariables() []variable {
	windows := windowsNode("b")
	windowsNoBuild := fmt.Sprintf("{%s: 'windows', %s: 'windows'}", celString(cluster.LabelOS), celString(cluster.LabelOSBeta))
	vs := []variable{
		// The pod spec of a Pod, a pod template or a CronJob's job template.
		{"spec", `object.kind == 'Pod' ? object.spec : object.kind == 'PodTemplate' ? object.template.spec : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec : object.spec.template.spec`},
		// winsupport.VisitContainers order: init, regular, ephemeral.
		{"containers", `variables.spec.?initContainers.orValue([]) + variables.spec.?containers.orValue([]) + variables.spec.?ephemeralContainers.orValue([])`},
		{"nodeSelector", `variables.spec.?nodeSelector.orValue({})`},
		{"tolerations", `variables.spec.?tolerations.orValue([])`},
		// Required node affinity terms, each reduced to its OS expressions;
		// a term without any admits every node (target.osAffinity).
		{"osTerms", `variables.spec.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([]).map(t, t.?matchExpressions.orValue([]).filter(e, e.key in ` + celList(osKeys) + `))`},
		{"buildsRaw", `params.data.builds.split(',').filter(b, b != '')`},
		{"buildsNorm", `params.data.buildNumbers.split(',').filter(b, b != '')`},
		{"cloudOS", cloudOSExpr},
		{"schedLinux", linuxNodes() + `.exists(L, size(variables.osTerms) == 0 ? ` + matchSelector("L") + ` : ` + matchNode("L") + `)`},
		// The normalised builds of the Windows nodes the constraints admit.
		// Without affinity terms or a build in the nodeSelector, all or none
		// (the common case, spared the loop over the builds).
		{"allowedBuilds", `size(variables.osTerms) == 0 && !(` + celString(cluster.LabelWindowsBuild) + ` in variables.nodeSelector) && !variables.cloudOS ? ` +
			`(` + matchSelector(windowsNoBuild) + ` ? variables.buildsNorm : []) : ` +
			`variables.buildsRaw.transformList(i, b, [` + windows + `].exists(L, ` + matchNode("L") + `), variables.buildsNorm[i])`},
		{"schedWindows", `size(variables.allowedBuilds) > 0`},
		// target.Facts.Builds is set (the build constraint binds) only when
		// some but not all candidate builds are admitted: admitting none
		// leaves it nil, which the rules read as unconstrained.
		{"constrained", `size(variables.allowedBuilds) > 0 && size(variables.allowedBuilds) < size(variables.buildsRaw)`},
		{"pinned", `variables.schedLinux != variables.schedWindows`},
		{"pinOS", `variables.schedLinux ? 'linux' : 'windows'`},
		{"hostProcess", `variables.spec.?securityContext.?windowsOptions.?hostProcess.orValue(false) || variables.containers.exists(c, c.?securityContext.?windowsOptions.?hostProcess.orValue(false))`},
		{"specOS", `variables.spec.?os.?name.orValue('')`},
	}
	vs = append(vs, imageVariables()...)
	vs = append(vs,
		// target.decide: the pin, then spec.os.name, then HostProcess, then
		// images when they agree.
		variable{"imgVotes", `variables.imgPlatforms.filter(p, p == 'windows' || p == 'linux')`},
		variable{"os", `variables.pinned ? variables.pinOS : variables.specOS == 'windows' || variables.specOS == 'linux' ? variables.specOS : variables.hostProcess ? 'windows' : size(variables.imgVotes) > 0 && variables.imgVotes.all(p, p == variables.imgVotes[0]) ? variables.imgVotes[0] : ''`},
		variable{"by", `variables.pinned ? (variables.nodeSelector.exists(k, k in ` + celList(osKeys) + `) ? 'nodeSelector' : 'node affinity') : variables.specOS == 'windows' || variables.specOS == 'linux' ? 'spec.os.name' : variables.hostProcess ? 'HostProcess' : 'image'`},
		variable{"hybrid", `params.data.hybrid == 'true'`},
		variable{"isDaemonSet", `object.kind == 'DaemonSet'`},
	)
	vs = append(vs, poolVariables()...)
	vs = append(vs, ruleVariables()...)
	vs = append(vs, variable{"ignored", ignoredExpr})
	return vs
}

// matchNode is the CEL for "the workload's OS constraints admit a node
// with labels L" (nodeaffinity.GetRequiredNodeAffinity(...).Match over the
// OS keys only, as internal/target reduces them).
func matchNode(labels string) string {
	sel := matchSelector("@L@")
	op := `(e.operator == 'In' ? (e.key in @L@ && e.?values.orValue([]).exists(v, v == @L@[e.key])) : ` +
		`e.operator == 'NotIn' ? (!(e.key in @L@) || !e.?values.orValue([]).exists(v, v == @L@[e.key])) : ` +
		`e.operator == 'Exists' ? e.key in @L@ : ` +
		`e.operator == 'DoesNotExist' ? !(e.key in @L@) : false)`
	aff := `(size(variables.osTerms) == 0 || variables.osTerms.exists(t, t.all(e, ` + op + `)))`
	return strings.ReplaceAll("("+sel+" && "+aff+")", "@L@", labels)
}

// matchSelector is the nodeSelector half of matchNode.
func matchSelector(labels string) string {
	return strings.ReplaceAll(`variables.nodeSelector.all(k, !(k in `+celList(osKeys)+`) || (k in @L@ && @L@[k] == variables.nodeSelector[k]))`, "@L@", labels)
}

// ignoredExpr lists the rule IDs of the winkube.io/ignore annotations on
// the object and its pod template (engine.ignored).
const ignoredExpr = `[object.metadata.?annotations.orValue({}), object.?spec.?template.?metadata.?annotations.orValue({}), object.?spec.?jobTemplate.?spec.?template.?metadata.?annotations.orValue({})].map(a, a[?'winkube.io/ignore'].orValue('').split(',')).flatten().map(s, s.trim()).filter(s, s != '')`

// caseOnlyExpr is CEL for rules.caseOnlyMismatch: a toleration tolerates
// the taint x ([key, value, effect, string]) but for letter case.
func caseOnlyExpr(x string) string {
	return strings.ReplaceAll(`variables.tolerations.exists(t, (t.?effect.orValue('') == '' || t.effect == x[2]) && (t.?key.orValue('') == '' || t.key.lowerAscii() == x[0].lowerAscii()) && `+
		`(t.?operator.orValue('') == 'Exists' || ((t.?operator.orValue('') == '' || t.operator == 'Equal') && t.?value.orValue('').lowerAscii() == x[1].lowerAscii())))`, "x[", x+"[")
}

// toleratesExpr is CEL for "toleration t tolerates taint x" (the
// scheduler's ToleratesTaint).
func toleratesExpr(t, x string) string {
	return strings.NewReplacer("t.", t+".", "x[", x+"[").Replace(`(t.?effect.orValue('') == '' || t.effect == x[2]) && (t.?key.orValue('') == '' || t.key == x[0]) && ` +
		`(t.?operator.orValue('') == 'Exists' || ((t.?operator.orValue('') == '' || t.operator == 'Equal') && t.?value.orValue('') == x[1]))`)
}

// poolVariables read the cluster's Windows pools from params: for each,
// its name, normalised build and NoSchedule/NoExecute taints, which of
// those taints the workload does not tolerate (the scheduler's
// ToleratesTaint), and whether its build constraints admit the pool.
func poolVariables() []variable {
	tolerated := `variables.tolerations.exists(t, ` + toleratesExpr("t", "x") + `)`
	return []variable{
		{"winPools", `params.data.windowsPools.split('\n').filter(l, l != '').map(l, l.split('|'))`},
		{"poolTaints", `variables.winPools.map(p, p[2].split(',').filter(x, x != '').map(x, [x.split(':')[0].split('=')[0], x.split(':')[0].contains('=') ? x.split(':')[0].split('=')[1] : '', x.split(':')[1], x]))`},
		{"untolerated", `variables.poolTaints.map(ts, ts.filter(x, !` + tolerated + `))`},
		{"buildOK", `variables.winPools.map(p, !variables.constrained || variables.allowedBuilds.exists(b, b == p[1]))`},
	}
}

// celf renders a message template of the rules (a fmt format with %s, %q
// and %d verbs) as a CEL string expression over the CEL expressions args,
// so that the policy's message and lint's come from one template. %q
// renders plain double quotes around the value (docs/policy.md,
// "Messages"). A template that does not fit its arguments panics: every
// exporter runs in the package's tests.
func celf(format string, args ...string) string {
	var parts []string
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, celString(lit.String()))
			lit.Reset()
		}
	}
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			lit.WriteByte(format[i])
			continue
		}
		i++
		if i == len(format) {
			panic(fmt.Sprintf("message template %q ends in %%", format))
		}
		verb := format[i]
		if verb == '%' {
			lit.WriteByte('%')
			continue
		}
		if n == len(args) {
			panic(fmt.Sprintf("message template %q: more verbs than the %d arguments", format, len(args)))
		}
		switch verb {
		case 's':
			flush()
			parts = append(parts, "("+args[n]+")")
		case 'q':
			lit.WriteByte('"')
			flush()
			parts = append(parts, "("+args[n]+")")
			lit.WriteByte('"')
		case 'd':
			flush()
			parts = append(parts, "string("+args[n]+")")
		default:
			panic(fmt.Sprintf("message template %q: verb %%%c has no CEL form", format, verb))
		}
		n++
	}
	flush()
	if n != len(args) {
		panic(fmt.Sprintf("message template %q: %d verbs for %d arguments", format, n, len(args)))
	}
	if len(parts) == 0 {
		return "''"
	}
	return "(" + strings.Join(parts, " + ") + ")"
}
