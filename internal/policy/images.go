package policy

import (
	"regexp"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/winsupport"
)

// imageVariables classify every container's image as
// winsupport.Model.ParseImage does: variables.imgPlatforms holds
// 'windows', 'linux', 'multi' or ” per container, in container order.
// The image table is compiled in from winsupport, so the policies follow
// it when it changes.
func imageVariables() []variable {
	m := winsupport.Default()
	return []variable{
		{"imgRefs", `variables.containers.map(c, c.?image.orValue('').trim()).map(r, r.indexOf('@') >= 0 ? r.substring(0, r.indexOf('@')) : r)`},
		{"imgTags", `variables.imgRefs.map(r, r.lastIndexOf(':') > r.lastIndexOf('/') ? r.substring(r.lastIndexOf(':') + 1).lowerAscii() : '')`},
		// splitRef: a bare name is on Docker Hub under library/.
		{"imgRepos", `variables.imgRefs.map(r, r.lastIndexOf(':') > r.lastIndexOf('/') ? r.substring(0, r.lastIndexOf(':')) : r).map(r, ` +
			`(r.indexOf('/') < 0 ? 'docker.io/library/' + r : ` +
			`!r.substring(0, r.indexOf('/')).matches('[.:]') && r.substring(0, r.indexOf('/')) != 'localhost' ? 'docker.io/' + r : ` +
			`r.substring(0, r.indexOf('/')) == 'index.docker.io' ? 'docker.io/' + r.substring(r.indexOf('/') + 1) : r).lowerAscii())`},
		// The longest matching prefix of the image table, else a last path
		// segment that says windows.
		// The length of the longest matching prefix of each platform's
		// rows (one regular expression each, longest alternative first),
		// and whether the last path segment says windows.
		{"imgPrefix", `variables.imgRepos.map(r, [size(r.find(` + celString(prefixRE(m, winsupport.PlatformWindows)) + `)), size(r.find(` + celString(prefixRE(m, winsupport.PlatformLinux)) + `)), ` +
			`size(r.find(` + celString(prefixRE(m, winsupport.PlatformMulti)) + `)), r.substring(r.lastIndexOf('/') + 1).contains('windows') ? 1 : 0])`},
		// The longest image-table prefix each repository starts with, or ''.
		{"imgRow", `variables.imgRepos.map(r, [r.find(` + celString(prefixRE(m, winsupport.PlatformWindows)) + `), r.find(` + celString(prefixRE(m, winsupport.PlatformLinux)) + `), ` +
			`r.find(` + celString(prefixRE(m, winsupport.PlatformMulti)) + `)].sortBy(p, -size(p))[0])`},
		{"imgTable", `variables.imgPrefix.map(t, t[0] + t[1] + t[2] == 0 ? [t[3] == 1 ? 'windows' : ''] : t[0] > t[1] && t[0] > t[2] ? ['windows'] : t[1] > t[2] ? ['linux'] : ['multi'])`},
		// winsupport's thirdPartyBuild: for a repository the image table
		// does not know, the build its publisher's tag names (windows-2019,
		// v2025.4-windows2019, 1809-jan2020), or ''.
		{"imgThirdParty", `variables.imgTags.transformList(i, t, variables.imgPrefix[i][0] + variables.imgPrefix[i][1] + variables.imgPrefix[i][2] == 0 ? ` + thirdPartyBuild(m, "t") + ` : '')`},
		{"imgPlatforms", `variables.imgTable.transformList(i, t, t[0] == 'windows' ? 'windows' : ` +
			`(variables.imgThirdParty[i] != '' || variables.imgTags[i].matches('windows|nanoserver|servercore') || variables.imgTags[i].matches(` + celString(fullBuildRE(m)) + `) || variables.imgTags[i].findAll('[a-z0-9]+').exists(w, w.matches(` + celString(ltscWordRE(m)) + `))) ? 'windows' : ` +
			`t[0] == 'multi' && variables.imgTags[i].findAll('[a-z0-9]+').exists(w, w.matches(` + celString(linuxVariantRE(m)) + `)) ? 'linux' : ` +
			`t[0] == 'windows' || t[0] == 'linux' || t[0] == 'multi' ? t[0] : '')`},
	}
}

// imageSourceVariable is winsupport.Image.Source, why ParseImage decided
// an image's platform, per container: the image table row's source, else
// what the repository name or the tag says. It reads imgBuilds (the build
// the tag names, checks_builds.go).
func imageSourceVariable() variable {
	m := winsupport.Default()
	sources := map[string]string{}
	for _, r := range m.ImagePrefixes() {
		sources[r.Prefix] = m.ParseImage(r.Prefix).Source
	}
	row := `(variables.imgRow[i] != '' ? ` + mapLiteral(sources) + `[variables.imgRow[i]] : t[0] == 'windows' ? ` + celString(winsupport.SourceRepositoryWindows) + ` : '')`
	return variable{"imgSource", `variables.imgTable.transformList(i, t, t[0] == 'windows' ? ` + row + ` : ` +
		`variables.imgBuilds[i] != '' ? ` + celString(winsupport.SourceTagBuild) + ` + variables.imgBuilds[i] : ` +
		`variables.imgTags[i].matches('windows|nanoserver|servercore') ? ` + celString(winsupport.SourceTagWindows) + ` : ` +
		`t[0] == 'multi' && variables.imgTags[i].findAll('[a-z0-9]+').exists(w, w.matches(` + celString(linuxVariantRE(m)) + `)) ? ` + celString(winsupport.SourceTagLinux) + ` : ` + row + `)`}
}

// prefixRE matches the longest image-table prefix of one platform at the
// start of a repository: RE2 picks the first alternative that matches, and
// the alternatives are longest first. Comparing the match lengths of the
// three platforms finds ParseImage's longest prefix.
func prefixRE(m winsupport.Model, p winsupport.Platform) string {
	var prefixes []string
	for _, r := range m.ImagePrefixes() {
		if r.Platform == p {
			prefixes = append(prefixes, regexp.QuoteMeta(r.Prefix))
		}
	}
	if len(prefixes) == 0 {
		return `^\b\B` // matches nothing
	}
	sort.SliceStable(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	return `^(?:` + strings.Join(prefixes, "|") + `)`
}

// fullBuildRE matches a tag naming a known build in full (10.0.20348),
// as winsupport's fullBuildRE followed by the build lookup.
func fullBuildRE(m winsupport.Model) string {
	var nums []string
	for _, b := range m.Builds() {
		nums = append(nums, strings.TrimPrefix(b.Build, "10.0."))
	}
	return `(^|[^0-9])10\.0\.(` + strings.Join(nums, "|") + `)([^0-9]|$)`
}

// ltscWordRE matches a tag word naming an LTSC build, which makes an image
// Windows even when nothing else does (tagBuild with windows=false).
func ltscWordRE(m winsupport.Model) string {
	var tags []string
	for _, b := range m.Builds() {
		for _, t := range b.Tags {
			if strings.HasPrefix(t, "ltsc") {
				tags = append(tags, t)
			}
		}
	}
	return `^(windowsservercore|nanoserver)?(` + strings.Join(tags, "|") + `)$`
}

// linuxVariantRE matches a tag word that selects a Linux-only variant of a
// multi-platform repository; trailing digits are ignored.
func linuxVariantRE(m winsupport.Model) string {
	return `^(` + strings.Join(m.LinuxVariantWords(), "|") + `)[0-9]*$`
}

// thirdPartyBuild is CEL for winsupport's thirdPartyBuild over the
// lowercased tag t: a tag word naming a Windows Server year
// (windows2019, ws2025), a "windows" or "ltsc" word followed by a year
// (windows-2019, windows-ltsc-2022), else a dotless tag starting with
// 1809; the build of the matching tag, or the empty string.
func thirdPartyBuild(m winsupport.Model, t string) string {
	tags := map[string]string{}
	for _, b := range m.Builds() {
		for _, bt := range b.Tags {
			if _, ok := tags[bt]; !ok {
				tags[bt] = b.Build
			}
		}
	}
	years := celList(winsupport.ThirdPartyYears())
	yearWord := celString(winsupport.ThirdPartyYearWordRE())
	cond := `(w.matches(` + yearWord + `) || ((w == 'windows' || w == 'ltsc') && j + 1 < size(ws) && (ws[j + 1] in ` + years + ` || (ws[j + 1] == 'ltsc' && j + 2 < size(ws) && ws[j + 2] in ` + years + `))))`
	year := `(w.matches(` + yearWord + `) ? w.substring(size(w) - 4) : ws[j + 1] in ` + years + ` ? ws[j + 1] : ws[j + 2])`
	return `[` + t + `.findAll('[a-z0-9]+')].map(ws, [(ws.transformList(j, w, ` + cond + `, ` + year + `) + [''])[0]].map(y, ` +
		`y != '' ? ` + mapLiteral(tags) + `[?('ltsc' + y)].orValue('') : ` +
		`size(ws) > 0 && ws[0] == '1809' && ` + t + `.startsWith('1809') && !` + t + `.contains('.') ? ` + mapLiteral(tags) + `[?'1809'].orValue('') : '')[0])[0]`
}
