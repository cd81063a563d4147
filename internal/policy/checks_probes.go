package policy

import (
	"sort"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// startupProbeChecks is windows-missing-startup-probe: in a Windows
// workload, regular containers and sidecar init containers (restartPolicy
// Always) with a liveness probe, no startup probe and an image on a large
// Windows base (winsupport.Model.LargeImage, its table compiled in).
func startupProbeChecks(winsupport.Model) []check {
	large := `variables.largeBase[i]`
	init := `size(variables.spec.?initContainers.orValue([]))`
	regular := `size(variables.spec.?containers.orValue([]))`
	cond := `(i < ` + init + ` ? c.?restartPolicy.orValue('') == 'Always' : i < ` + init + ` + ` + regular + `) && ` +
		`has(c.livenessProbe) && !has(c.startupProbe) && ` + large + ` != ''`
	return []check{{expr: `variables.os == 'windows' && variables.containers.exists(i, c, ` + cond + `)`,
		detail: `variables.containers.transformList(i, c, ` + cond + `, ` + celf(rules.MissingStartupProbeMsg, `c.name`, large) + `).join('; ')`}}
}

// largeBaseVariable is, per container, how windows-missing-startup-probe
// names its image's large Windows base ("Server Core, ~4.7 GB"), or ”
// when the base is small or unknown: winsupport.Model.ImageBase over the
// repository (the longest row of the table that matches it), else, for a
// Windows image, over the first of the tag words the tag contains.
func largeBaseVariable(m winsupport.Model) variable {
	repos := m.BaseImageRepos()
	sort.SliceStable(repos, func(i, j int) bool { return len(repos[i].Repo) > len(repos[j].Repo) })
	// The rows longest first: the first that matches is ImageBase's.
	expr := `(variables.imgPlatforms[i] != 'windows' ? '' : ` + baseTagExpr(m) + `)`
	for i := len(repos) - 1; i >= 0; i-- {
		r := repos[i]
		match := `r == ` + celString(r.Repo)
		if !r.Exact {
			match += ` || r.startsWith(` + celString(r.Repo+"/") + `)`
		}
		expr = `(` + match + `) ? ` + celString(largeBaseName(r.Base)) + ` : ` + expr
	}
	return variable{"largeBase", `variables.imgRepos.transformList(i, r, ` + expr + `)`}
}

// baseTagExpr is the tag half of largeBaseVariable: the first tag word the
// lowercased tag contains names the base.
func baseTagExpr(m winsupport.Model) string {
	out := `''`
	words := m.BaseTagWords()
	for i := len(words) - 1; i >= 0; i-- {
		out = `variables.imgTags[i].contains(` + celString(words[i].Word) + `) ? ` + celString(largeBaseName(words[i].Base)) + ` : ` + out
	}
	return `(` + out + `)`
}

// largeBaseName is how the rule names a large base ("Server Core, ~4.7 GB"), ”
// for a small one.
func largeBaseName(b winsupport.BaseImage) string {
	if !b.Large {
		return ""
	}
	if s := b.Size(); s != "" {
		return b.Name + ", " + s
	}
	return b.Name
}
