package policy

import (
	"regexp"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

var imageChecks = map[string]exporter{
	"windows-build-unsupported": func(m winsupport.Model) []check {
		img := imageBuildIs(m, func(b winsupport.Build) bool { return !(b.Channel == winsupport.SAC && b.EOL) && !m.NodeSupported(b) })
		var unsupported []string
		for _, b := range m.Builds() {
			if !m.NodeSupported(b) {
				unsupported = append(unsupported, b.Build)
			}
		}
		// rules.pinnedBuilds: the nodeSelector's windows-build and every
		// In value of a windows-build affinity expression.
		build := celString(cluster.LabelWindowsBuild)
		pins := `((` + build + ` in variables.nodeSelector ? [variables.nodeSelector[` + build + `]] : []) + ` +
			`variables.spec.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([]).map(t, ` +
			`t.?matchExpressions.orValue([]).filter(e, e.key == ` + build + ` && e.operator == 'In').map(e, e.?values.orValue([])).flatten()).flatten())`
		fires := `variables.os != 'linux' && ((!variables.hostProcess && variables.imgRefs.exists(i, r, r != '' && ` + img + `)) || ` + pins + `.exists(v, v in ` + celList(unsupported) + `))`
		return []check{{expr: fires,
			detail: celString("an image or a windows-build pin names a Windows build that Kubernetes " + m.V.String() + " does not support as a node OS")}}
	},
	"sac-image-eol": func(m winsupport.Model) []check {
		eol := imageBuildIs(m, func(b winsupport.Build) bool { return b.Channel == winsupport.SAC && b.EOL })
		return []check{{expr: `variables.imgRefs.exists(i, r, r != '' && ` + eol + `)`,
			detail: `'image ' + variables.imgRefs.transformList(i, r, r != '' && ` + eol + `, '"' + variables.containers[i].image + '"').join(', ') + ' is built for an end-of-life Semi-Annual Channel release that gets no security updates'`}}
	},
	"windows-image-on-linux": func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'linux' && variables.imgPlatforms.exists(p, p == 'windows')`,
			detail: `'image ' + variables.imgRefs.transformList(i, r, variables.imgPlatforms[i] == 'windows', '"' + variables.containers[i].image + '"').join(', ') + ' is Windows-only but the workload is bound to Linux (from ' + variables.by + '); on a Linux node the pull fails'`}}
	},
	"linux-image-on-windows": func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'windows' && variables.imgPlatforms.exists(p, p == 'linux')`,
			detail: `'image ' + variables.imgRefs.transformList(i, r, variables.imgPlatforms[i] == 'linux', '"' + variables.containers[i].image + '"').join(', ') + ' is Linux-only but the workload is bound to Windows (from ' + variables.by + '); on a Windows node the pull fails'`}}
	},
}

// imageBuildIs is CEL, over i (a container index), for "the Windows build
// the image's tag implies is one of which": winsupport's tagBuild, which
// reads a full 10.0.NNNNN version first, else the first tag word naming a
// build (a bare SAC number only when the image is otherwise Windows).
func imageBuildIs(m winsupport.Model, which func(winsupport.Build) bool) string {
	var nums, whichNums, allTags, ltscTags, whichTags []string
	for _, b := range m.Builds() {
		n := strings.TrimPrefix(b.Build, "10.0.")
		nums = append(nums, n)
		if which(b) {
			whichNums = append(whichNums, n)
		}
		for _, t := range b.Tags {
			allTags = append(allTags, regexp.QuoteMeta(t))
			if strings.HasPrefix(t, "ltsc") {
				ltscTags = append(ltscTags, t)
			}
			if which(b) {
				whichTags = append(whichTags, regexp.QuoteMeta(t))
			}
		}
	}
	full := func(ns []string) string {
		if len(ns) == 0 {
			return `^\b\B`
		}
		return `(^|[^0-9])10\.0\.(` + strings.Join(ns, "|") + `)([^0-9]|$)`
	}
	word := func(tags []string) string {
		if len(tags) == 0 {
			return `^\b\B`
		}
		return `^(windowsservercore|nanoserver)?(` + strings.Join(tags, "|") + `)$`
	}
	tag := `variables.imgTags[i]`
	windows := `(variables.imgTable[i][0] == 'windows' || ` + tag + `.matches('windows|nanoserver|servercore'))`
	hits := tag + `.findAll('[a-z0-9]+').filter(w, w.matches(` + windows + ` ? ` + celString(word(allTags)) + ` : ` + celString(word(ltscTags)) + `))`
	return `(` + tag + `.matches(` + celString(full(nums)) + `) ? ` + tag + `.matches(` + celString(full(whichNums)) + `) : ` +
		`size(` + hits + `) > 0 && ` + hits + `[0].matches(` + celString(word(whichTags)) + `))`
}
