package policy

import (
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// pauseRepos are the repositories winsupport.Model.PauseImage calls the
// pause image; TestPauseReposAgree holds the regular expression to it.
var pauseRepos = winsupport.Model{}.PauseRepositories()

// linuxSystemRoots are the roots winsupport.Model.LinuxSystemPath reports,
// in its order; TestLinuxSystemRootsAgree holds the CEL's reading of them to it.
var linuxSystemRoots = winsupport.Model{}.LinuxSystemRoots()

// pauseImageRE matches an image reference whose repository is a pause
// image's, as PauseImage reads it: the part before '@', without a tag
// (after the last ':' when no '/' follows it).
func pauseImageRE() string {
	q := make([]string, len(pauseRepos))
	for i, r := range pauseRepos {
		q[i] = regexp.QuoteMeta(r)
	}
	return `(?s)^(` + strings.Join(q, "|") + `)(:[^/@:]*)?(@.*)?$`
}

// andList is CEL for rules.resourceList over the CEL list l: "a",
// "a and b", "a, b and c".
func andList(l string) string {
	return `(size(` + l + `) < 2 ? ` + l + `.join('') : ` + l + `.slice(0, size(` + l + `) - 1).join(', ') + ' and ' + ` + l + `[size(` + l + `) - 1])`
}

// cleanPath is CEL for strings.TrimRight(p, "/").
func cleanPath(p string) string { return p + `.find('(?s)^.*[^/]')` }

// windowsNodePath is CEL for winsupport.Model.WindowsNodePath over a
// cleaned path c.
func windowsNodePath(m winsupport.Model, c string) string {
	var nodePaths []string
	for _, n := range m.WindowsNodePaths() {
		nodePaths = append(nodePaths, n.Path)
	}
	return celList(nodePaths) + `.exists(n, ` + c + ` == n || ` + c + `.startsWith(n + '/') || n.startsWith(` + c + ` + '/'))`
}

// linuxSystemRoot is CEL for the root winsupport.Model.LinuxSystemPath
// finds for the path p, or ” (the Windows node paths aside: see
// windowsNodePath).
func linuxSystemRoot(p string) string {
	q := make([]string, len(linuxSystemRoots))
	for i, r := range linuxSystemRoots {
		q[i] = regexp.QuoteMeta(r)
	}
	// The roots do not overlap, so the one a path lies in is the
	// alternative that matches, its following '/' (if any) dropped.
	roots := `^(?:` + strings.Join(q, "|") + `)`
	return cleanPath(p) + `.find(` + celString(roots+`(?:/|$)`) + `).find(` + celString(roots) + `)`
}

// ruleVariables are what single rules need beyond the workload variables:
// the lists their messages name. Variables are evaluated only when a
// validation reads them.
func ruleVariables() []variable {
	m := winsupport.Default()
	// rules.WindowsLinuxPath: [mountPath, the Linux system root it lies
	// in or ''] of every mount, then one message per reported mount, in
	// container order (init, regular, ephemeral), skipping containers
	// whose image is Windows or published for both OSes.
	root := linuxSystemRoot("m.mountPath")
	linuxPathMsgs := `variables.containers.transformList(i, c, !(variables.imgPlatforms[i] in ['windows', 'multi']), c.?volumeMounts.orValue([]).map(m, [string(m.mountPath), ` + root + `])` +
		`.filter(x, x[1] != '' && x[0] != ` + celString(serviceAccountMountPath) + ` && !` + windowsNodePath(m, cleanPath("x[0]")) + `)` +
		`.map(x, 'mountPath "' + x[0] + '" is under ' + x[1] + ', where only Linux programs look')).flatten()`
	// rules.WindowsMissingResources: the regular containers lacking a
	// memory limit or a cpu request (a limit stands in for its request),
	// pause images and node agents left out; shown as at most three names and "N more".
	lacks := `(!('memory' in c.?resources.?limits.orValue({})) || (!('cpu' in c.?resources.?requests.orValue({})) && !('cpu' in c.?resources.?limits.orValue({}))))`
	// A DaemonSet container lacking only its memory limit (requests set)
	// is a node agent left unlimited on purpose.
	agent := `(variables.isDaemonSet && !('memory' in c.?resources.?limits.orValue({})) && 'memory' in c.?resources.?requests.orValue({}) && ('cpu' in c.?resources.?requests.orValue({}) || 'cpu' in c.?resources.?limits.orValue({})))`
	missing := `variables.spec.?containers.orValue([]).filter(c, ` + lacks + ` && !` + agent + ` && !c.?image.orValue('').matches(` + celString(pauseImageRE()) + `)).map(c, '"' + c.name + '"')`
	n := `size(variables.missingResources)`
	shown := n + ` <= 3 ? variables.missingResources : variables.missingResources.slice(0, 3) + [string(` + n + ` - 3) + ' more']`
	vs := []variable{
		// The field paths lint names: the pod spec's and each container's.
		{"fieldPath", `object.kind == 'Pod' ? 'spec' : object.kind == 'PodTemplate' ? 'template.spec' : object.kind == 'CronJob' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec'`},
		{"containerPaths", `variables.containers.transformList(i, c, i < size(variables.spec.?initContainers.orValue([])) ? variables.fieldPath + '.initContainers[' + string(i) + ']' : ` +
			`i < size(variables.spec.?initContainers.orValue([])) + size(variables.spec.?containers.orValue([])) ? variables.fieldPath + '.containers[' + string(i - size(variables.spec.?initContainers.orValue([]))) + ']' : ` +
			`variables.fieldPath + '.ephemeralContainers[' + string(i - size(variables.spec.?initContainers.orValue([])) - size(variables.spec.?containers.orValue([]))) + ']')`},
		{"hostPorts", `variables.containers.map(c, c.?ports.orValue([]).filter(p, p.?hostPort.orValue(0) != 0).map(p, string(p.hostPort)))`},
		{"linuxPathMsgs", linuxPathMsgs},
		{"missingResources", missing},
		{"missingResourcesShown", shown},
	}
	vs = append(vs, buildVariables(m)...)
	vs = append(vs, nonRootVariables(m)...)
	vs = append(vs, imageSourceVariable())
	vs = append(vs, imageBuildVariables(m)...)
	vs = append(vs, largeBaseVariable(m))
	return append(vs, networkVariables()...)
}

// cloudOSExpr is true when the workload's nodeSelector or required node
// affinity names a managed platform's OS label (AKS's OS SKU, GKE's
// Windows version): only then do the synthetic nodes need those labels.
var cloudOSExpr = `variables.nodeSelector.exists(k, k in ` + celList(winsupport.CloudOSLabelKeys()) + `) || ` +
	`variables.osTerms.exists(t, t.exists(e, e.key in ` + celList(winsupport.CloudOSLabelKeys()) + `))`

// linuxNodes is the CEL list of the Linux nodes internal/target matches a
// workload's constraints against: a bare one, and one per managed
// platform's Linux OS label (winsupport.Model.CloudLinuxLabels). Without
// a platform label in the constraints (variables.cloudOS), only the bare
// node is tried.
func linuxNodes() string {
	base := map[string]string{cluster.LabelOS: "linux", cluster.LabelOSBeta: "linux"}
	nodes := []string{mapLiteral(base)}
	for _, cloud := range (winsupport.Model{}).CloudLinuxLabels() {
		l := maps.Clone(base)
		maps.Copy(l, cloud)
		nodes = append(nodes, mapLiteral(l))
	}
	return `(variables.cloudOS ? [` + strings.Join(nodes, ", ") + `] : [` + nodes[0] + `])`
}

// windowsNode is CEL for the labels of a Windows node of the raw build b
// (a CEL expression), as internal/target labels it: the OS labels, the
// build and, for a build the managed platforms provision, their OS labels
// (winsupport.Model.CloudWindowsLabels, looked up by the raw value as
// target does).
func windowsNode(b string) string {
	base := func(build string) map[string]string {
		return map[string]string{cluster.LabelOS: "windows", cluster.LabelOSBeta: "windows", cluster.LabelWindowsBuild: build}
	}
	m := winsupport.Default()
	var entries []string
	for _, bd := range m.Builds() {
		cloud := m.CloudWindowsLabels(bd.Build)
		if len(cloud) == 0 {
			continue
		}
		l := base(bd.Build)
		maps.Copy(l, cloud)
		entries = append(entries, celString(bd.Build)+": "+mapLiteral(l))
	}
	plain := fmt.Sprintf("{%s: 'windows', %s: 'windows', %s: %s}", celString(cluster.LabelOS), celString(cluster.LabelOSBeta), celString(cluster.LabelWindowsBuild), "string("+b+")")
	if len(entries) == 0 {
		return plain
	}
	return `(variables.cloudOS ? {` + strings.Join(entries, ", ") + `}[?` + b + `].orValue(` + plain + `) : ` + plain + `)`
}
