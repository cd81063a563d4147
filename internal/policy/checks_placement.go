package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// Reachable and tainted Windows pools (rules.windowsPools): those whose
// build the workload admits, split by whether it tolerates their taints.
const (
	anyReachable = `variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0)`
	anyTainted   = `variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) > 0)`
)

// poolList is CEL for rules.poolList over the pools the condition (over
// i and p) keeps, with the detail (over i and p; ” for none) in
// parentheses: "a" (x), "b" and "c" (y).
func poolList(cond, detail string) string {
	l := `variables.winPools.transformList(i, p, ` + cond + `, '"' + p[0] + '"' + (` + detail + ` != '' ? ' (' + ` + detail + ` + ')' : ''))`
	return andList(l)
}

// plural is CEL choosing one or many by the number of pools the
// condition keeps.
func plural(cond, one, many string) string {
	return `(size(variables.winPools.transformList(i, p, ` + cond + `, 1)) == 1 ? ` + celString(one) + ` : ` + celString(many) + `)`
}

var placementChecks = map[*rule.Rule]exporter{
	rules.MissingOSPin: func(winsupport.Model) []check {
		// Control-plane nodes are always Linux: a non-Windows workload
		// that selects them (nodeSelector, or every required term) is
		// pinned in effect, as rules.controlPlaneOnly decides.
		roles := `['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/controlplane', 'node-role.kubernetes.io/master']`
		terms := `variables.spec.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([])`
		controlPlane := `(` + roles + `.exists(k, k in variables.nodeSelector) || (size(` + terms + `) > 0 && ` + terms +
			`.all(t, t.?matchExpressions.orValue([]).exists(e, e.key in ` + roles + ` && e.operator == 'Exists'))))`
		base := `variables.hybrid && !variables.pinned && (variables.schedLinux || variables.schedWindows) && !(variables.isDaemonSet && variables.os != 'windows') && !(variables.os != 'windows' && ` + controlPlane + `)`
		return []check{
			{expr: base + ` && variables.os == 'windows'`, severity: sev(rule.Error),
				detail: celf(rules.MissingOSPinWindowsMsg, `variables.by`)},
			{expr: base + ` && variables.os == 'linux'`,
				detail: celf(rules.MissingOSPinLinuxMsg, `variables.by`)},
			{expr: base + ` && variables.os == ''`,
				detail: celf(rules.MissingOSPinAnyMsg)},
		}
	},
	rules.MissingWindowsToleration: func(winsupport.Model) []check {
		// The first untolerated taint of the first admitted Windows pool with one
		// (as [key, value, effect, string, pool]); a toleration that
		// matches it but for letter case is named instead.
		// Pools a build pin keeps the pods off are skipped, whatever their
		// taints (rules.buildAllowed). A pod that names its node is held
		// only to NoExecute taints, the ones its kubelet checks.
		u := `variables.untolerated[i].filter(t, ` + namedTaintChecked("t") + `)`
		x := `variables.winPools.transformList(i, p, variables.buildOK[i] && size(` + u + `) > 0, ` + u + `[0] + [p[0]])[0]`
		return []check{{
			expr: `variables.os == 'windows' && variables.pinned && variables.winPools.exists(i, p, variables.buildOK[i] && size(` + u + `) > 0)`,
			detail: `(` + caseOnlyExpr(x) + ` ? ` + celf(rules.TaintCaseMsg, x+`[3]`) + ` : ` +
				`(variables.spec.?nodeName.orValue('') != '' ? ` + celf(rules.UntoleratedTaintNamedMsg, x+`[3]`, x+`[4]`) + ` : ` +
				`(variables.isDaemonSet ? ` + celf(rules.UntoleratedTaintDaemonSetMsg, x+`[3]`, x+`[4]`) + ` : ` +
				celf(rules.UntoleratedTaintMsg, x+`[3]`, x+`[4]`) + `)))`,
		}}
	},
	rules.TolerationWithoutSelector: func(winsupport.Model) []check {
		// The first reachable tainted pool's first taint (as [key, value,
		// effect, string, pool]) and the first toleration that tolerates
		// it, which may be a blanket one.
		x := `variables.winPools.transformList(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && size(variables.poolTaints[i]) > 0, variables.poolTaints[i][0] + [p[0]])[0]`
		tol := `variables.tolerations.filter(t, ` + toleratesExpr("t", x) + `)[0]`
		return []check{{
			expr: `!variables.isDaemonSet && variables.hybrid && variables.schedLinux && variables.schedWindows && variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && size(variables.poolTaints[i]) > 0)`,
			detail: `(` + tol + `.?key.orValue('') == '' && ` + tol + `.?operator.orValue('') == 'Exists' ? ` +
				celf(rules.BlanketTolerationMsg, x+`[3]`, x+`[4]`) + ` : ` + celf(rules.TolerationTaintMsg, x+`[3]`, x+`[4]`) + `) + ` + celString(rules.NoWindowsPinMsg),
		}}
	},
	rules.ConflictingOSSignals: func(winsupport.Model) []check {
		return []check{
			{expr: `variables.pinned && (variables.specOS == 'windows' || variables.specOS == 'linux') && variables.specOS != variables.pinOS`,
				detail: celf(rules.SpecOSConflictMsg, `variables.specOS`, `variables.by`, `variables.pinOS == 'windows' ? 'Windows' : 'Linux'`, celString(winsupport.KubeletOSMismatch))},
			{expr: `variables.pinned && variables.pinOS == 'linux' && variables.hostProcess`,
				detail: celf(rules.HostProcessOnLinuxMsg, `variables.by`)},
		}
	},
	rules.MissingSpecOS: func(m winsupport.Model) []check {
		if !m.Supports(winsupport.FeaturePodOS) {
			return nil
		}
		return []check{{
			expr:   `variables.os == 'windows' && !has(variables.spec.os)`,
			detail: celf(rules.MissingSpecOSMsg, `variables.by`),
		}}
	},
	rules.MissingWindowsBuildPin: func(winsupport.Model) []check {
		builds := `variables.winPools.transformList(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && p[1] != '', p[1])`
		reachable := `variables.buildOK[i] && size(variables.untolerated[i]) == 0`
		return []check{{
			expr: `variables.os == 'windows' && !variables.hostProcess && !variables.constrained && variables.schedWindows && ` +
				builds + `.exists(a, ` + builds + `.exists(b, a != b)) && !variables.imgPlatforms.all(p, p == 'multi')`,
			detail: celf(rules.MissingBuildPinMsg, poolList(reachable, `p[3]`)),
		}}
	},
	rules.LinuxDaemonSetUnpinned: func(winsupport.Model) []check {
		base := `variables.isDaemonSet && variables.os != 'windows' && variables.schedWindows`
		who := `(variables.os == 'linux' ? ` + celf(rules.LinuxDaemonSetWho, `variables.by`) + ` : 'DaemonSet')`
		reachable := `variables.buildOK[i] && size(variables.untolerated[i]) == 0`
		tainted := `variables.buildOK[i] && size(variables.untolerated[i]) > 0`
		return []check{
			{expr: base + ` && ` + anyReachable,
				detail: celf(rules.DaemonSetOnWindowsMsg, who, plural(reachable, "pool", "pools"),
					poolList(reachable, `(p[2] == '' ? 'untainted' : 'its tolerations cover the pool\'s taints')`))},
			{expr: base + ` && !` + anyReachable + ` && ` + anyTainted, severity: sev(rule.Warning),
				detail: celf(rules.DaemonSetTaintsOnlyMsg, who, plural(tainted, "pool", "pools"), poolList(tainted, `variables.untolerated[i][0][3]`))},
		}
	},
}

// namedTaintChecked is CEL for "taint t ([key, value, effect, string])
// counts for this workload": every taint the scheduler checks, but only
// a NoExecute one for a pod that names its node (spec.nodeName), which
// only its kubelet admits (pkg/kubelet/lifecycle/predicate.go).
func namedTaintChecked(t string) string {
	return `(variables.spec.?nodeName.orValue('') == '' || ` + t + `[2] == 'NoExecute')`
}
