package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Reachable and tainted Windows pools (rules.windowsPools): those whose
// build the workload admits, split by whether it tolerates their taints.
const (
	anyReachable  = `variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0)`
	anyTainted    = `variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) > 0)`
	reachableList = `variables.winPools.transformList(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0, '"' + p[0] + '"').join(', ')`
)

var placementChecks = map[string]exporter{
	"missing-os-pin": func(winsupport.Model) []check {
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
				detail: `'Windows workload (from ' + variables.by + ') has no kubernetes.io/os selector; the scheduler ignores spec.os.name and may bind it to a Linux node'`},
			{expr: base + ` && variables.os == 'linux'`,
				detail: `'Linux workload (from ' + variables.by + ') has no kubernetes.io/os selector; it may be scheduled onto a Windows node'`},
			{expr: base + ` && variables.os == ''`,
				detail: `'workload has no kubernetes.io/os selector and may be scheduled onto Linux or Windows nodes'`},
		}
	},
	"missing-windows-toleration": func(winsupport.Model) []check {
		return []check{{
			expr:   `variables.os == 'windows' && variables.pinned && variables.untolerated.exists(u, size(u) > 0)`,
			detail: `'Windows workload does not tolerate ' + variables.winPools.transformList(i, p, size(variables.untolerated[i]) > 0, 'taint ' + variables.untolerated[i][0][3] + ' of Windows pool "' + p[0] + '"').join(', ') + '; its pods will stay Pending'`,
		}}
	},
	"toleration-without-selector": func(winsupport.Model) []check {
		return []check{{
			expr:   `!variables.isDaemonSet && variables.hybrid && variables.schedLinux && variables.schedWindows && variables.winPools.exists(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && size(variables.poolTaints[i]) > 0)`,
			detail: `'the tolerations tolerate the taints of Windows pool ' + variables.winPools.transformList(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && size(variables.poolTaints[i]) > 0, '"' + p[0] + '"')[0] + ' but nothing pins the workload to Windows: its pods can land on Linux or Windows nodes'`,
		}}
	},
	"conflicting-os-signals": func(winsupport.Model) []check {
		return []check{
			{expr: `variables.pinned && (variables.specOS == 'windows' || variables.specOS == 'linux') && variables.specOS != variables.pinOS`,
				detail: `'spec.os.name is ' + variables.specOS + ' but the ' + variables.by + ' pins the workload to ' + variables.pinOS + ' nodes; the kubelet refuses the pod there'`},
			{expr: `variables.pinned && variables.pinOS == 'linux' && variables.hostProcess`,
				detail: `'HostProcess container in a workload the ' + variables.by + ' pins to Linux nodes; HostProcess containers run only on Windows nodes'`},
		}
	},
	"missing-spec-os": func(m winsupport.Model) []check {
		if !m.Supports(winsupport.FeaturePodOS) {
			return nil
		}
		return []check{{
			expr:   `variables.os == 'windows' && !has(variables.spec.os)`,
			detail: `'Windows workload (from ' + variables.by + ') does not set spec.os.name: windows'`,
		}}
	},
	"missing-windows-build-pin": func(winsupport.Model) []check {
		builds := `variables.winPools.transformList(i, p, variables.buildOK[i] && size(variables.untolerated[i]) == 0 && p[1] != '', p[1])`
		return []check{{
			expr: `variables.os == 'windows' && !variables.hostProcess && !variables.constrained && variables.schedWindows && ` +
				builds + `.exists(a, ` + builds + `.exists(b, a != b)) && !variables.imgPlatforms.all(p, p == 'multi')`,
			detail: `'Windows workload has no node.kubernetes.io/windows-build constraint and can land on Windows pools ' + ` + reachableList + ` + '; under process isolation its images must match the node\'s build'`,
		}}
	},
	"linux-daemonset-unpinned": func(winsupport.Model) []check {
		base := `variables.isDaemonSet && variables.os != 'windows' && variables.schedWindows`
		return []check{
			{expr: base + ` && ` + anyReachable,
				detail: `'DaemonSet is not pinned to Linux and will run a pod on every node of Windows pools ' + ` + reachableList + ` + ', where Linux containers cannot start'`},
			{expr: base + ` && !` + anyReachable + ` && ` + anyTainted, severity: sev(rule.Warning),
				detail: `'DaemonSet is not pinned to Linux; only taints keep it off Windows pools'`},
		}
	},
}
