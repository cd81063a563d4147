package policy

import (
	"strings"

	"github.com/winkube/winkube/internal/rule"
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

// linuxPath is winsupport.Model.LinuxPath on the CEL string s.
func linuxPath(s string) string { return `(` + s + `.startsWith('/') && !` + s + `.startsWith('//'))` }

var linuxOnlyChecks = map[string]exporter{
	"windows-host-network": func(m winsupport.Model) []check {
		return []check{{expr: win + ` && ` + hostNetwork + ` && !variables.hostProcess`,
			detail: celString("hostNetwork: true on a Windows pod without HostProcess containers: " + m.HostNetworkState() + "; the pod gets a container network, not the node's")}}
	},
	"windows-host-port": func(winsupport.Model) []check {
		return []check{{expr: win + ` && !` + hostNetwork + ` && !variables.hostProcess && variables.containers.exists(c, c.?ports.orValue([]).exists(p, p.?hostPort.orValue(0) != 0))`,
			detail: `'hostPort on a Windows container (' + variables.containers.map(c, c.?ports.orValue([]).filter(p, p.?hostPort.orValue(0) != 0).map(p, string(p.hostPort))).flatten().join(', ') + '): Windows nodes do not support hostPort unless the CNI plugin implements port mappings'`}}
	},
	"windows-dns-host-net": func(winsupport.Model) []check {
		// Without hostNetwork the kubelet treats the policy as ClusterFirst
		// (rules.WindowsDNSHostNet): not reported.
		return []check{{expr: win + ` && variables.spec.?dnsPolicy.orValue('') == 'ClusterFirstWithHostNet' && ` + hostNetwork + ` && !variables.hostProcess`,
			detail: `'dnsPolicy ClusterFirstWithHostNet is not supported on Windows: Windows pods never share the host network, so at best it acts as the default ClusterFirst; remove it'`}}
	},
	"windows-memory-emptydir": func(winsupport.Model) []check {
		return []check{{expr: win + ` && ` + volumes + `.exists(v, v.?emptyDir.?medium.orValue('') == 'Memory')`,
			detail: `'emptyDir ' + ` + volumes + `.filter(v, v.?emptyDir.?medium.orValue('') == 'Memory').map(v, '"' + v.name + '"').join(', ') + ' has medium Memory, which Windows does not support (no RAM disk)'`}}
	},
	"windows-hugepages": func(winsupport.Model) []check {
		res := `[c.?resources.?requests.orValue({}), c.?resources.?limits.orValue({})].exists(l, l.exists(k, k.startsWith('hugepages-') && quantity(string(l[k])).asApproximateFloat() != 0.0))`
		return []check{{expr: win + ` && (variables.containers.exists(c, ` + res + `) || ` + volumes + `.exists(v, v.?emptyDir.?medium.orValue('').startsWith('HugePages')))`,
			detail: `'huge pages on a Windows workload: Windows has no huge pages, so no Windows node has room and the pod stays Pending'`}}
	},
	"windows-subpath": func(m winsupport.Model) []check {
		if m.Supports(winsupport.FeatureSubPath) {
			return nil
		}
		return []check{{expr: win + ` && !variables.hostProcess && ` + mounts + `.exists(m, m.?subPath.orValue('') != '' || m.?subPathExpr.orValue('') != '')`,
			detail: celString("subPath mounts: Windows nodes on Docker EE, still possible in Kubernetes " + m.V.String() + ", mount only whole volumes; it works only with containerd")}}
	},
	"windows-mount-propagation": func(winsupport.Model) []check {
		return []check{{expr: win + ` && ` + mounts + `.exists(m, m.?mountPropagation.orValue('None') != 'None')`,
			detail: `'mountPropagation of volume ' + ` + mounts + `.filter(m, m.?mountPropagation.orValue('None') != 'None').map(m, '"' + m.name + '"').join(', ') + ' is not supported on Windows: the kubelet makes the mount private, so nothing propagates'`}}
	},
	"windows-volume-devices": func(winsupport.Model) []check {
		return []check{{expr: win + ` && variables.containers.exists(c, size(c.?volumeDevices.orValue([])) > 0)`,
			detail: `'volumeDevices: Windows cannot attach raw block devices to pods'`}}
	},
	"windows-unsupported-volume": func(m winsupport.Model) []check {
		var unsupported []string
		for _, t := range m.VolumeTypes() {
			if t.Windows == winsupport.Unsupported {
				unsupported = append(unsupported, t.Name)
			}
		}
		var nodePaths []string
		for _, n := range m.WindowsNodePaths() {
			nodePaths = append(nodePaths, n.Path)
		}
		// WindowsNodePath: the path with trailing slashes trimmed equals a
		// known node path, lies under one or above one.
		clean := `v.hostPath.path.find('^.*[^/]')`
		nodePath := celList(nodePaths) + `.exists(n, ` + clean + ` == n || ` + clean + `.startsWith(n + '/') || n.startsWith(` + clean + ` + '/'))`
		return []check{
			{expr: win + ` && ` + volumes + `.exists(v, ` + celList(unsupported) + `.exists(t, t in v))`,
				detail: `'volume ' + ` + volumes + `.filter(v, ` + celList(unsupported) + `.exists(t, t in v)).map(v, '"' + v.name + '"').join(', ') + ' is of a type Windows does not support (` + strings.Join(unsupported, ", ") + `): it will not mount and the pod stays in ContainerCreating'`},
			{expr: win + ` && ` + volumes + `.exists(v, has(v.hostPath) && ` + linuxPath("v.hostPath.path") + ` && !` + nodePath + `)`, severity: sev(rule.Warning),
				detail: `'hostPath ' + ` + volumes + `.filter(v, has(v.hostPath) && ` + linuxPath("v.hostPath.path") + ` && !` + nodePath + `).map(v, '"' + v.hostPath.path + '"').join(', ') + ' is a Linux path: a Windows node reads it as C:\\..., not the Linux directory it names'`},
		}
	},
	"windows-linux-path": func(winsupport.Model) []check {
		// rules.WindowsLinuxPath: one finding per mount, joined here
		// (variables.linuxPathMsgs).
		return []check{{expr: win + ` && !variables.hostProcess && size(variables.linuxPathMsgs) > 0`,
			detail: `variables.linuxPathMsgs.join('; ')`}}
	},
	"windows-linux-shell": func(winsupport.Model) []check {
		return []check{{expr: win + ` && variables.containers.exists(c, size(c.?command.orValue([])) > 0 && c.command[0] in ` + celList(linuxShells) + `)`,
			detail: `'container ' + variables.containers.filter(c, size(c.?command.orValue([])) > 0 && c.command[0] in ` + celList(linuxShells) + `).map(c, '"' + c.name + '" runs ' + c.command[0]).join(', ') + ', a Linux shell that Windows images do not have: the container will not start'`}}
	},
	"windows-missing-resources": func(winsupport.Model) []check {
		// rules.WindowsMissingResources: one finding per workload naming
		// up to three containers (variables.missingResources).
		n := `size(variables.missingResources)`
		return []check{{expr: win + ` && ` + n + ` > 0`,
			detail: `(` + n + ` == 1 ? 'container ' : 'containers ') + ` + andList(`variables.missingResourcesShown`) +
				` + (` + n + ` == 1 ? ' has' : ' have') + ' no memory limit or no cpu/memory requests; a Windows node has no OOM killer to protect it'`}}
	},
	"windows-sidecar-unsupported": func(m winsupport.Model) []check {
		if m.Supports(winsupport.FeatureSidecars) {
			return nil
		}
		return []check{{expr: win + ` && variables.spec.?initContainers.orValue([]).exists(c, c.?restartPolicy.orValue('') == 'Always')`,
			detail: celString("sidecar init containers (restartPolicy: Always), which Kubernetes " + m.V.String() + " does not enable: they run as plain init containers and, if they never exit, the pod never starts")}}
	},
}
