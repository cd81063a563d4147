package policy

import (
	"regexp"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// The two rules about an image's or a pin's Windows build that the CEL
// decides from the object and the params: windows-build-unsupported and
// sac-image-eol. Each is its own exporter (buildUnsupportedChecks,
// sacImageEOLChecks) over the shared build variables below, so that a
// change to one rule's findings stays local.

// celMap renders string pairs as a CEL map literal.
func celMap(kv map[string]string) string {
	return mapLiteral(kv)
}

// buildVariables derive, per container and for the pins, the Windows
// builds the image rules read (version-independent; the checks add the
// release's support table):
//
//	imgFull          the first 10.0.NNNNN of the tag if it is a known build, else ''
//	imgWords         the tag words naming a build, as their build tag (1809, ltsc2022)
//	imgBuildsTag     the build a build tag of the image names, a bare SAC
//	                 number only for an image otherwise Windows; ''
//	imgBuilds        winsupport.Image.Build: imgBuildsTag, else the build a
//	                 third party's tag names (imgThirdParty)
//	imgInferred      winsupport.Image.BuildInferred: imgBuilds came from
//	                 imgThirdParty
//	imgBuildsAsWin   the same read as for a Windows workload (WindowsTagBuild)
//	buildPinPairs    rules.pinnedBuilds as [build, "label value"]: the
//	                 nodeSelector's windows-build and platform OS labels
//	                 (kubernetes.azure.com/os-sku Windows2019 is 10.0.17763)
//	                 and the In values of such affinity expressions
//	buildPins        their builds
//	hostBuilds       rules.buildHosts: the builds of the Windows pools the
//	                 workload admits and the admitted builds it pins
//	buildHosts       rules.buildHosts as [label, build] pairs, the label as
//	                 rules.hostList names the host
//	sacBad           per container, the buildHosts labels that cannot
//	                 start its image's known end-of-life SAC build
//	                 (rules.sacHosts); [] for any other image
//	sacRetag         winsupport.Model.Retag split around the build tag it
//	                 replaces: [before, after], or [] when it cannot
func buildVariables(m winsupport.Model) []variable {
	var known []string
	tagBuild := map[string]string{}
	for _, b := range m.Builds() {
		known = append(known, b.Build)
		for _, t := range b.Tags {
			tagBuild[t] = b.Build
		}
	}
	windowsWord := `(variables.imgTable[i][0] == 'windows' || t.matches('windows|nanoserver|servercore'))`
	strip := `w.startsWith('windowsservercore') ? w.substring(17) : w.startsWith('nanoserver') ? w.substring(10) : w`
	build := celString(cluster.LabelWindowsBuild)
	normalise := `(` + celList(known) + `.filter(k, v == k || v.startsWith(k + '.')) + [v])[0]`
	moved := `variables.imgRefs[i].substring(0, variables.imgRefs[i].lastIndexOf(':'))`
	for _, mv := range movedRepos {
		moved = `variables.imgRepos[i] == ` + celString(mv.From) + ` ? ` + celString(mv.To) + ` : ` + moved
	}
	moved = `(` + moved + `)`
	tagRE := map[string]string{}
	for _, b := range m.Builds() {
		var q []string
		for _, t := range b.Tags {
			q = append(q, regexp.QuoteMeta(t))
		}
		tagRE[b.Build] = strings.Join(q, "|")
	}
	word := `m.substring(0, variables.sacEnd[i]).find('[a-z0-9]+$')`
	var eol []string
	for _, b := range m.Builds() {
		if b.Channel == winsupport.SAC && b.EOL {
			eol = append(eol, b.Build)
		}
	}
	// rules.pinBuild: the build a pin's value names, keyed by
	// "label=value" for the platforms' labels.
	buildKeys := append([]string{cluster.LabelWindowsBuild}, winsupport.CloudOSLabelKeys()...)
	cloudBuilds := map[string]string{}
	for _, b := range m.Builds() {
		for k, v := range m.CloudWindowsLabels(b.Build) {
			cloudBuilds[k+"="+v] = b.Build
		}
	}
	pins := `variables.buildPins.map(v, ` + normalise + `).filter(v, !variables.constrained || v in variables.allowedRaw)`
	return []variable{
		{"imgFull", `variables.imgTags.map(t, t.find('(^|[^0-9])10\\.0\\.[0-9]{5}([^0-9]|$)').find('10\\.0\\.[0-9]{5}')).map(n, n in ` + celList(known) + ` ? n : '')`},
		{"imgWords", `variables.imgTags.map(t, t.findAll('[a-z0-9]+').map(w, ` + strip + `).filter(w, w in ` + celMap(tagBuild) + `))`},
		{"imgBuildsTag", `variables.imgTags.transformList(i, t, variables.imgFull[i] != '' ? variables.imgFull[i] : ` +
			`(variables.imgWords[i].filter(w, w.startsWith('ltsc') || ` + windowsWord + `).map(w, ` + celMap(tagBuild) + `[w]) + [''])[0])`},
		{"imgBuilds", `variables.imgBuildsTag.transformList(i, b, b != '' ? b : variables.imgThirdParty[i])`},
		{"imgInferred", `variables.imgBuildsTag.transformList(i, b, b == '' && variables.imgThirdParty[i] != '')`},
		{"imgBuildsAsWin", `variables.imgTags.transformList(i, t, variables.imgFull[i] != '' ? variables.imgFull[i] : (variables.imgWords[i].map(w, ` + celMap(tagBuild) + `[w]) + [''])[0])`},
		{"buildPinPairs", `(` + celList(buildKeys) + `.filter(k, k in variables.nodeSelector).map(k, [k, string(variables.nodeSelector[k])]) + ` +
			`variables.spec.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([]).map(t, ` +
			`t.?matchExpressions.orValue([]).filter(e, e.key in ` + celList(buildKeys) + ` && e.operator == 'In').map(e, e.?values.orValue([]).map(v, [string(e.key), string(v)])).flatten()).flatten())` +
			`.filter(x, x[0] == ` + build + ` || (x[0] + '=' + x[1]) in ` + celMap(cloudBuilds) + `)` +
			`.map(x, [x[0] == ` + build + ` ? x[1] : ` + celMap(cloudBuilds) + `[x[0] + '=' + x[1]], x[0] + ' ' + x[1]])`},
		{"buildPins", `variables.buildPinPairs.map(x, x[0])`},
		// The raw candidate builds the constraints admit (target's
		// Facts.Builds), which rules.buildHosts compares pins against.
		{"allowedRaw", `variables.buildsRaw.filter(b, [` + windowsNode("b") + `].exists(L, ` + matchNode("L") + `))`},
		{"hostBuilds", `variables.winPools.transformList(i, p, variables.buildOK[i] && p[1] != '', p[1]) + ` +
			`variables.buildPins.map(v, ` + normalise + `).filter(v, !variables.constrained || v in variables.allowedRaw)`},
		// rules.buildHosts with its labels, [label, build]: the admitted
		// pools with a build, then the pins no such pool runs, once each.
		{"buildHosts", `variables.winPools.transformList(i, p, variables.buildOK[i] && p[1] != '', ['Windows pool "' + p[0] + '" (' + p[3] + ')', p[1]]) + ` +
			pins + `.transformList(i, v, !` + pins + `.exists(j, w, j < i && w == v) && !variables.winPools.exists(j, p, variables.buildOK[j] && p[1] == v), ['the pinned build ' + string(v), string(v)])`},
		// rules.sacHosts under process isolation (workloads naming a
		// RuntimeClass, the only Hyper-V ones, are not checked): per
		// container whose image is known to be built for an end-of-life SAC
		// build, the labels of the hosts it can land on that do not run
		// that build. A build below 20348 runs only on a host of that very
		// build (winsupport.HostRuns; ParseOSVersion reads the host).
		{"sacBad", `variables.imgBuilds.map(b, b in ` + celList(eol) + ` && !variables.hostProcess && variables.schedWindows && variables.os != 'linux' ? ` +
			`variables.buildHosts.filter(h, !h[1].matches('^0*10\\.0+\\.0*' + b.substring(5) + '(\\..*)?$')).map(h, h[0]) : [])`},
		// Retag: the first tag word (in the lowercased tag) naming the
		// image's build with an optional variant prefix; sacEnd is where
		// it ends, sacStart where the replaced build tag starts.
		{"sacMatch", `variables.imgTags.transformList(i, t, variables.imgBuilds[i] != '' && !variables.containers[i].?image.orValue('').contains('@') ? ` +
			`t.find('^.*?(^|[^a-z0-9])(windowsservercore|nanoserver)?(' + ` + celMap(tagRE) + `[variables.imgBuilds[i]] + ')([^a-z0-9]|$)') : '')`},
		{"sacEnd", `variables.sacMatch.map(m, m == '' ? -1 : size(m) - (m.matches('[^a-z0-9]$') ? 1 : 0))`},
		{"sacStart", `variables.sacMatch.transformList(i, m, m == '' ? -1 : variables.sacEnd[i] - size(` + word + `) + ` +
			`(` + word + `.startsWith('windowsservercore') ? 17 : ` + word + `.startsWith('nanoserver') ? 10 : 0))`},
		{"sacRetag", `variables.sacMatch.transformList(i, m, m == '' ? [] : [` + moved + ` + ':' + variables.imgRefs[i].substring(variables.imgRefs[i].lastIndexOf(':') + 1).substring(0, variables.sacStart[i]), ` +
			`variables.imgRefs[i].substring(variables.imgRefs[i].lastIndexOf(':') + 1).substring(variables.sacEnd[i])])`},
	}
}

// movedRepos are winsupport's moved Docker Hub repositories, which Retag
// replaces by their new address; TestMovedReposAgree holds them to it.
var movedRepos = []struct{ From, To string }{
	{"docker.io/microsoft/windowsservercore", "mcr.microsoft.com/windows/servercore"},
	{"docker.io/microsoft/nanoserver", "mcr.microsoft.com/windows/nanoserver"},
	{"docker.io/microsoft/iis", "mcr.microsoft.com/windows/servercore/iis"},
	{"docker.io/microsoft/aspnet", "mcr.microsoft.com/dotnet/framework/aspnet"},
}

// nanoserverTagException is winsupport's tag exception: Nano Server has
// no ltsc2019 tag, Windows Server 2019's is 1809.
var nanoserverTagException = struct{ Prefix, Build, Tag string }{"mcr.microsoft.com/windows/nanoserver", "10.0.17763", "1809"}

// buildNames are CEL maps from a build number to "Name (10.0.NNNNN)"
// (rules.buildName), to its name, to the Kubernetes releases supporting
// it and to its first tag.
func buildNames(m winsupport.Model) (full, name, supports, firstTag string) {
	f, n, s, t := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for _, b := range m.Builds() {
		f[b.Build] = b.Name + " (" + b.Build + ")"
		n[b.Build] = b.Name
		s[b.Build] = b.Supports.String()
		if len(b.Tags) > 0 {
			t[b.Build] = b.Tags[0]
		}
	}
	return celMap(f), celMap(n), celMap(s), celMap(t)
}

// buildUnsupportedChecks is windows-build-unsupported: images (not in
// HostProcess workloads) of a build the release does not support as a
// node OS, end-of-life SAC builds excepted (sac-image-eol's) and images
// that can land on a host of another build excepted (image-build-mismatch
// says both in one finding); and windows-build pins naming such a build
// exactly. One message per image, then per pin.
func buildUnsupportedChecks(m winsupport.Model) []check {
	var unsupportedImg, unsupportedPin []string
	for _, b := range m.Builds() {
		if m.NodeSupported(b) {
			continue
		}
		unsupportedPin = append(unsupportedPin, b.Build)
		if !(b.Channel == winsupport.SAC && b.EOL) {
			unsupportedImg = append(unsupportedImg, b.Build)
		}
	}
	full, name, supports, _ := buildNames(m)
	unsupported := func(b string) string {
		return `', which Kubernetes ` + m.V.String() + ` does not support as a node OS (supported in ' + ` + supports + `[` + b + `] + ')'`
	}
	images := `variables.imgBuilds.transformList(i, b, b in ` + celList(unsupportedImg) + ` && !variables.hostBuilds.exists(h, h != b), ` +
		`'image "' + variables.containers[i].image + '" is built for ' + ` + full + `[b] + (variables.imgInferred[i] ? ' (inferred from its tag)' : '') + ` + unsupported("b") + `)`
	pins := `variables.buildPinPairs.filter(x, x[0] in ` + celList(unsupportedPin) + `).map(x, x[1] + ' pins ' + ` + name + `[x[0]] + ` + unsupported("x[0]") + `)`
	msgs := `((variables.hostProcess ? [] : ` + images + `) + ` + pins + `)`
	fires := `variables.os != 'linux' && ((!variables.hostProcess && variables.imgBuilds.exists(b, b in ` + celList(unsupportedImg) + ` && !variables.hostBuilds.exists(h, h != b))) || ` +
		`variables.buildPins.exists(v, v in ` + celList(unsupportedPin) + `))`
	return []check{{expr: fires, detail: msgs + `.join('; ')`}}
}

// sacImageEOLChecks is sac-image-eol: images whose tag names an
// end-of-life Semi-Annual Channel build (a bare SAC number of an image of
// unknown platform only in a Windows workload), each with the LTSC tag to
// use (winsupport.Model.LTSCFor over the cluster's pools, then Retag) or
// the build to rebuild on. As in lint, one finding per image: an error
// naming the hosts the workload can land on that cannot start the image
// when its build is known (not guessed from a private tag) and some host
// does not run it, else a warning that the release gets no security
// updates; hence two checks, one per severity.
func sacImageEOLChecks(m winsupport.Model) []check {
	var eol, ltsc []string
	for _, b := range m.Builds() {
		if b.Channel == winsupport.SAC && b.EOL {
			eol = append(eol, b.Build)
		}
		if b.Channel == winsupport.LTSC && m.NodeSupported(b) {
			ltsc = append([]string{b.Build}, ltsc...) // newest first
		}
	}
	full, name, _, firstTag := buildNames(m)
	build := `(variables.imgBuilds[i] != '' ? variables.imgBuilds[i] : variables.os == 'windows' ? variables.imgBuildsAsWin[i] : '')`
	head := `'image "' + variables.containers[i].image + '" is built for ' + ` + full + `[` + build + `]`
	suggest := ""
	if len(ltsc) > 0 {
		// LTSCFor: the newest supported LTSC build of the cluster's Windows
		// pools, else the newest supported.
		to := `(` + celList(ltsc) + `.filter(b, variables.winPools.exists(p, p[1] == b)) + ` + celList(ltsc) + `)[0]`
		r := `variables.sacRetag[i]`
		tag := `(` + r + `[0].lowerAscii().startsWith(` + celString(nanoserverTagException.Prefix) + `) && ` + to + ` == ` + celString(nanoserverTagException.Build) + ` ? ` +
			celString(nanoserverTagException.Tag) + ` : ` + firstTag + `[` + to + `])`
		suggest = ` + (size(` + r + `) == 2 ? '; use the LTSC tag "' + ` + r + `[0] + ` + tag + ` + ` + r + `[1] + '"' : ` +
			`'; rebuild it on ' + ` + name + `[` + to + `] + ' (tag ' + ` + firstTag + `[` + to + `] + ')')`
	}
	// The known build's hosts that cannot start the image make the one
	// finding an error that names them (rules.hostList).
	bad := `variables.sacBad[i]`
	hosts := `(size(` + bad + `) == 1 ? ` + bad + `[0] : ` + bad + `.transformList(j, l, j < size(` + bad + `) - 1, l).join(', ') + ' and ' + ` + bad + `[size(` + bad + `) - 1])`
	errMsg := head + ` + ', an end-of-life Semi-Annual Channel release that cannot start on ' + ` + hosts + suggest
	warnMsg := head + ` + ', an end-of-life Semi-Annual Channel release that gets no security updates'` + suggest
	isEOL := build + ` in ` + celList(eol)
	return []check{
		{expr: `variables.sacBad.exists(l, size(l) > 0)`, severity: sev(rule.Error),
			detail: `variables.containers.transformList(i, c, size(` + bad + `) > 0, ` + errMsg + `).join('; ')`},
		{expr: `variables.containers.exists(i, c, ` + isEOL + ` && size(` + bad + `) == 0)`,
			detail: `variables.containers.transformList(i, c, ` + isEOL + ` && size(` + bad + `) == 0, ` + warnMsg + `).join('; ')`},
	}
}
