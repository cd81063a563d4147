package winsupport

import (
	"regexp"
	"slices"
	"strings"
)

// Windows builds read from the tags of images winkube does not know:
// third parties name their Windows builds their own way.

// yearBuildRE matches the ways third parties name a Windows Server
// release in a tag word: windows2019, win2022, ws2025, windowsserver2019,
// ltsc2019 (already a build tag).
var yearBuildRE = regexp.MustCompile(ThirdPartyYearWordRE())

// thirdPartyYears are the Windows Server years third parties' tags name.
var thirdPartyYears = []string{"2019", "2022", "2025"}

// ThirdPartyYears are the Windows Server years a third party's tag may
// name (windows-2019-amd64); the exported policies read tags with them.
func ThirdPartyYears() []string { return slices.Clone(thirdPartyYears) }

// ThirdPartyYearWordRE matches a tag word naming a Windows Server year
// (windows2019, win2022, ws2025), the year its submatch.
func ThirdPartyYearWordRE() string {
	return `^(?:windows|win|ws|windowsserver|servercore|nanoserver)(` + strings.Join(thirdPartyYears, "|") + `)$`
}

// thirdPartyBuild reads a Windows build from the tag of an image winkube
// does not know, as its publisher names it: a word such as windows2019, a
// "windows" word followed by a year (windows-2019-amd64, windows-ltsc-2022),
// or a tag that starts with 1809 (1809, 1809-jan2020) and has no dots (a
// version such as 1809.2 is not a build).
func thirdPartyBuild(tag string) *Build {
	words := tagWordRE.FindAllString(tag, -1)
	year := ""
	for i, w := range words {
		if m := yearBuildRE.FindStringSubmatch(w); m != nil {
			year = m[1]
			break
		}
		if (w == "windows" || w == "ltsc") && i+1 < len(words) {
			next := words[i+1]
			if next == "ltsc" && i+2 < len(words) {
				next = words[i+2]
			}
			if slices.Contains(thirdPartyYears, next) {
				year = next
				break
			}
		}
	}
	if year != "" {
		return buildByTag("ltsc" + year)
	}
	if len(words) > 0 && words[0] == "1809" && strings.HasPrefix(tag, "1809") && !strings.Contains(tag, ".") {
		return buildByTag("1809")
	}
	return nil
}
