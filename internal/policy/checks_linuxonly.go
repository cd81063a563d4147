package policy

import (
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// linuxShells are the commands winsupport.Model.LinuxShell recognises;
// TestLinuxShellsAgree holds the list to it.
var linuxShells = []string{"/bin/sh", "/bin/bash", "sh", "bash", "/bin/ash", "ash", "/usr/bin/env", "/bin/zsh", "/usr/bin/bash", "/usr/bin/sh"}

// serviceAccountMountPath is exempt from windows-linux-path (rules).
const serviceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

const (
	win         = `variables.os == 'windows'`
	hostNetwork = `variables.spec.?hostNetwork.orValue(false)`
	mounts      = `variables.containers.map(c, c.?volumeMounts.orValue([])).flatten()`
	volumes     = `variables.spec.?volumes.orValue([])`
)

var linuxOnlyChecks = map[*rule.Rule]exporter{
	rules.WindowsHostNetwork: func(m winsupport.Model) []check {
		return []check{{expr: win + ` && ` + hostNetwork + ` && !variables.hostProcess`,
			detail: celString("hostNetwork: true on a Windows pod without HostProcess containers: " + m.HostNetworkState() + "; the pod gets a container network, not the node's")}}
	},
	rules.WindowsHostPort: func(winsupport.Model) []check {
		// One message per container, naming its hostPorts.
		// Only where a Windows pool's CNI does not map ports
		// (rules.noPortMappingsPool: the first such pool is named).
		noMap := `variables.winPools.filter(p, size(p) > 4 && p[4] == 'false')`
		ports := `variables.hostPorts[i]`
		msgs := `variables.containers.transformList(i, c, size(` + ports + `) > 0, ` +
			celf(rules.HostPortNoMappingMsg, `size(`+ports+`) == 1 ? 'hostPort' : 'hostPorts'`, andList(ports), `c.name`, noMap+`[0][0]`) + `)`
		return []check{{expr: win + ` && !` + hostNetwork + ` && !variables.hostProcess && size(` + noMap + `) > 0 && variables.hostPorts.exists(l, size(l) > 0)`,
			detail: msgs + `.join('; ')`}}
	},
	rules.WindowsDNSHostNet: func(winsupport.Model) []check {
		// Without hostNetwork the kubelet treats the policy as ClusterFirst
		// (rules.WindowsDNSHostNet): not reported.
		return []check{{expr: win + ` && variables.spec.?dnsPolicy.orValue('') == 'ClusterFirstWithHostNet' && ` + hostNetwork + ` && !variables.hostProcess`,
			detail: celString(rules.DNSHostNetMsg)}}
	},
	rules.WindowsMemoryEmptyDir: func(winsupport.Model) []check {
		memory := `v.?emptyDir.?medium.orValue('') == 'Memory'`
		return []check{{expr: win + ` && ` + volumes + `.exists(v, ` + memory + `)`,
			detail: volumes + `.filter(v, ` + memory + `).map(v, ` + celf(rules.MemoryEmptyDirMsg, `v.name`) + `).join('; ')`}}
	},
	rules.WindowsHugepages: func(winsupport.Model) []check {
		// rules.reportHugepages: each size once per container, at its
		// request, else its limit; then HugePages emptyDirs.
		huge := `k.startsWith('hugepages-') && quantity(string(l[k])).asApproximateFloat() != 0.0`
		req := `c.?resources.?requests.orValue({})`
		lim := `c.?resources.?limits.orValue({})`
		msg := func(l string) string {
			return `.map(k, k + ' ' + string(` + l + `[k]) + ' on a Windows container: Windows has no huge pages, so no Windows node has room and the pod stays Pending (Insufficient ' + k + ')')`
		}
		reqKeys := req + `.filter(k, ` + strings.ReplaceAll(huge, "l[k]", req+"[k]") + `).sort()`
		limKeys := lim + `.filter(k, ` + strings.ReplaceAll(huge, "l[k]", lim+"[k]") + ` && !(k in ` + reqKeys + `)).sort()`
		ctrs := `variables.containers.map(c, ` + reqKeys + msg(req) + ` + ` + limKeys + msg(lim) + `).flatten()`
		vols := volumes + `.filter(v, v.?emptyDir.?medium.orValue('').startsWith('HugePages')).map(v, 'emptyDir "' + v.name + '" has medium ' + v.emptyDir.medium + ': Windows has no huge pages (hugetlbfs)')`
		msgs := `(` + ctrs + ` + ` + vols + `)`
		return []check{{expr: win + ` && size(` + msgs + `) > 0`, detail: msgs + `.join('; ')`}}
	},
	rules.WindowsSubPath: func(m winsupport.Model) []check {
		if m.Supports(winsupport.FeatureSubPath) {
			return nil
		}
		tail := `': Windows nodes on Docker EE, still possible in Kubernetes ` + m.V.String() + `, mount only whole volumes; it works only with containerd'`
		msgs := mounts + `.map(m, (m.?subPath.orValue('') != '' ? ['subPath "' + m.subPath + '" of volume "' + m.name + '"' + ` + tail + `] : []) + ` +
			`(m.?subPathExpr.orValue('') != '' ? ['subPathExpr "' + m.subPathExpr + '" of volume "' + m.name + '"' + ` + tail + `] : [])).flatten()`
		return []check{{expr: win + ` && !variables.hostProcess && size(` + msgs + `) > 0`, detail: msgs + `.join('; ')`}}
	},
	rules.WindowsMountPropagation: func(m winsupport.Model) []check {
		// Mounts of a volume windows-unsupported-volume reports are left
		// to it (rules.volumeBroken): the volume is the cause.
		named := volumes + `.filter(v, v.name == m.name)`
		broken := `(size(` + named + `) > 0 && ` + `[` + named + `[0]].exists(v, ` + unsupportedKind(m, "v") + ` != '' || (!variables.hostProcess && ` + linuxHostPath(m, "v") + `)))`
		set := `m.?mountPropagation.orValue('None') != 'None' && !` + broken
		return []check{{expr: win + ` && ` + mounts + `.exists(m, ` + set + `)`,
			detail: mounts + `.filter(m, ` + set + `).map(m, ` + celf(rules.MountPropagationMsg, `m.mountPropagation`, `m.name`) + `).join('; ')`}}
	},
	rules.WindowsVolumeDevices: func(winsupport.Model) []check {
		devices := `variables.containers.map(c, c.?volumeDevices.orValue([])).flatten()`
		return []check{{expr: win + ` && size(` + devices + `) > 0`,
			detail: devices + `.map(d, ` + celf(rules.VolumeDevicesMsg, `d.name`, `d.devicePath`) + `).join('; ')`}}
	},
	rules.WindowsUnsupportedVolume: func(m winsupport.Model) []check {
		notes := map[string]string{}
		for _, t := range m.VolumeTypes() {
			if t.Windows == winsupport.Unsupported {
				notes[t.Name] = t.Note
			}
		}
		kind := unsupportedKind(m, "v")
		hostPath := linuxHostPath(m, "v")
		return []check{
			{expr: win + ` && ` + volumes + `.exists(v, ` + kind + ` != '')`,
				detail: volumes + `.filter(v, ` + kind + ` != '').map(v, ` + kind + ` + ' volume "' + v.name + '" is not supported on Windows (' + ` + mapLiteral(notes) + `[` + kind + `] + '): it will not mount and the pod stays in ContainerCreating').join('; ')`},
			{expr: win + ` && !variables.hostProcess && ` + volumes + `.exists(v, ` + hostPath + `)`, severity: sev(rule.Warning),
				detail: volumes + `.filter(v, ` + hostPath + `).map(v, 'hostPath "' + v.hostPath.path + '" is a Linux system location Windows nodes do not have: the node reads it as ' + ` +
					`(v.hostPath.path.contains(':') ? v.hostPath.path : 'C:' + v.hostPath.path.replace('/', '\\'))).join('; ')`},
		}
	},
	rules.WindowsLinuxPath: func(winsupport.Model) []check {
		// rules.WindowsLinuxPath: one finding per mount, joined here
		// (variables.linuxPathMsgs).
		return []check{{expr: win + ` && !variables.hostProcess && size(variables.linuxPathMsgs) > 0`,
			detail: `variables.linuxPathMsgs.join('; ')`}}
	},
	rules.WindowsLinuxShell: func(winsupport.Model) []check {
		shell := `size(c.?command.orValue([])) > 0 && c.command[0] in ` + celList(linuxShells)
		return []check{{expr: win + ` && variables.containers.exists(c, ` + shell + `)`,
			detail: `variables.containers.filter(c, ` + shell + `).map(c, ` + celf(rules.LinuxShellMsg, `c.name`, `c.command[0]`) + `).join('; ')`}}
	},
	rules.WindowsMissingResources: func(winsupport.Model) []check {
		// rules.WindowsMissingResources: one finding per workload naming
		// up to three containers (variables.missingResources).
		n := `size(variables.missingResources)`
		// Helm test hooks run once, under helm test (rules.helmTestHook).
		helmTest := `object.metadata.?annotations.orValue({})[?'helm.sh/hook'].orValue('').split(',').exists(h, h.trim() in ['test', 'test-success', 'test-failure'])`
		return []check{{expr: win + ` && ` + n + ` > 0 && !` + helmTest,
			detail: celf(rules.MissingResourcesMsg, n+` == 1 ? 'container' : 'containers'`, andList(`variables.missingResourcesShown`), n+` == 1 ? 'has' : 'have'`)}}
	},
	rules.WindowsSidecarUnsupported: func(m winsupport.Model) []check {
		if m.Supports(winsupport.FeatureSidecars) {
			return nil
		}
		sidecar := `c.?restartPolicy.orValue('') == 'Always'`
		return []check{{expr: win + ` && variables.spec.?initContainers.orValue([]).exists(c, ` + sidecar + `)`,
			detail: `variables.spec.?initContainers.orValue([]).filter(c, ` + sidecar + `).map(c, 'init container "' + c.name + '" is a sidecar (restartPolicy: Always), which Kubernetes ` + m.V.String() +
				` does not enable: it runs as a plain init container and, if it never exits, the pod never starts').join('; ')`}}
	},
}

// unsupportedKind is CEL for the volume type Windows does not support
// that the volume v (a CEL expression) names, or the empty string: a volume has one
// source, the first unsupported type it names.
func unsupportedKind(m winsupport.Model, v string) string {
	var unsupported []string
	for _, t := range m.VolumeTypes() {
		if t.Windows == winsupport.Unsupported {
			unsupported = append(unsupported, t.Name)
		}
	}
	return `(` + celList(unsupported) + `.filter(t, t in ` + v + `) + [''])[0]`
}

// linuxHostPath is CEL for "the volume v is a hostPath at a Linux system
// location" (winsupport.Model.LinuxSystemPath, the Windows node paths
// aside).
func linuxHostPath(m winsupport.Model, v string) string {
	return `has(` + v + `.hostPath) && ` + linuxSystemRoot(v+`.hostPath.path`) + ` != '' && !` + windowsNodePath(m, cleanPath(v+`.hostPath.path`))
}
