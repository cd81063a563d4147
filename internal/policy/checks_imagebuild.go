package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// image-build-mismatch (rules.ImageBuildMismatch) as the policies can
// decide it: by the image's tag (the registry path, --resolve-images,
// needs the registry), under process isolation (the Hyper-V branch needs
// a workload naming a RuntimeClass, which the policies skip: see
// matchConditions). Each container whose image the tag tables call
// Windows and give a build, sac-image-eol's end-of-life SAC builds aside,
// is checked against variables.buildHosts, the Windows pools the workload
// admits and the builds it pins, with containerd's rule compiled from
// winsupport.BuildRuns (buildRuns below).

// imageBuildVariables derive, per container, the hosts that cannot start
// its image (rules.reportBuildMismatch's badPools and badPins):
//
//	buildBad  [pool labels, pinned builds] of the hosts whose build does
//	          not run the image's; [[], []] for a container the rule does
//	          not check (no Windows image of a known build, an
//	          end-of-life SAC build, a HostProcess or Linux workload, or
//	          one that cannot land on Windows)
func imageBuildVariables(m winsupport.Model) []variable {
	var eol []string
	for _, b := range m.Builds() {
		if b.Channel == winsupport.SAC && b.EOL {
			eol = append(eol, b.Build)
		}
	}
	// The hosts that do not run the image, split into pools (named by
	// their label) and pins (by their build): buildHosts labels a pool
	// 'Windows pool "name" (build)', a pin 'the pinned build ...'.
	pool := `h[0].startsWith('Windows pool ')`
	bad := `[variables.buildHosts.filter(h, !` + buildRuns(m, "h[1]", "b") + `)].map(x, [x.filter(h, ` + pool + `).map(h, h[0]), x.filter(h, !` + pool + `).map(h, h[1])])[0]`
	// ParseImage makes every image with a build Windows, so the rule's
	// platform test adds nothing to b != '' (and imgPlatforms, its
	// costliest variable, is left unevaluated for pinned workloads).
	checked := `b != '' && !(b in ` + celList(eol) + `)`
	return []variable{
		{"buildBad", `!variables.hostProcess && variables.schedWindows && variables.os != 'linux' ? ` +
			`variables.imgBuilds.transformList(i, b, ` + checked + ` ? ` + bad + ` : [[], []]) : ` +
			`variables.imgBuilds.map(b, [[], []])`},
	}
}

// imageBuildMismatchChecks is image-build-mismatch: one message per
// container with hosts that cannot start its image, from the rule's
// templates.
func imageBuildMismatchChecks(m winsupport.Model) []check {
	var unsupported []string
	for _, b := range m.Builds() {
		if !(b.Channel == winsupport.SAC && b.EOL) && !m.NodeSupported(b) {
			unsupported = append(unsupported, b.Build)
		}
	}
	full, _, _, _ := buildNames(m)
	x := `variables.buildBad[i]`
	b := `variables.imgBuilds[i]`
	built := `(` + celf(rules.ImageBuiltForMsg, `c.image`, full+`[`+b+`]`) +
		` + (variables.imgInferred[i] ? ` + celString(rules.BuildInferredMsg) + ` : '')` +
		` + (` + b + ` in ` + celList(unsupported) + ` ? ` + celf(rules.BuildNodeUnsupportedMsg, celString(m.V.String())) + ` : ''))`
	where := `([size(` + x + `[0]) > 0 ? [` + celf(rules.BuildLandsOnMsg, andList(x+`[0]`)) + `] : [], ` +
		`size(` + x + `[1]) > 0 ? [` + celf(rules.BuildPinsMsg, andList(x+`[1]`)) + `] : []].flatten().join(' and '))`
	msg := celf(rules.BuildMismatchMsg, built, where, celString(rules.ProcessIsolationMsg), celString(winsupport.HostOSMismatch))
	fires := `variables.buildBad.exists(x, size(x[0]) + size(x[1]) > 0)`
	return []check{{expr: fires,
		detail: `variables.containers.transformList(i, c, size(` + x + `[0]) + size(` + x + `[1]) > 0, ` + msg + `).join('; ')`}}
}

// buildRuns is CEL for winsupport.BuildRuns(host, image,
// ProcessIsolation) over a host build (a pool's or a pin's, as
// variables.buildHosts holds it) and an image build the model knows. The
// relation is compiled from winsupport: for a host the model knows, the
// image builds it runs; for any other, its version read as
// winsupport.ParseOSVersion reads it (three dot-separated decimal parts
// within uint8, uint8 and uint16, anything after a third dot ignored) and
// compared with the ranges of host versions that run each image build.
func buildRuns(m winsupport.Model, host, image string) string {
	known, ranges := runsRelation(m)
	// Up to 3 and 5 significant digits keep int() in range; the bounds are
	// checked after.
	re := `(?s)^0*[0-9]{1,3}\.0*[0-9]{1,3}\.0*[0-9]{1,5}(\..*)?$`
	n := `(int(v[0]) * 16777216 + int(v[1]) * 65536 + int(v[2]))`
	parsed := host + `.matches(` + celString(re) + `) && [` + host + `.split('.')].all(v, int(v[0]) <= 255 && int(v[1]) <= 255 && int(v[2]) <= 65535 && ` +
		ranges + `[?` + image + `].orValue([]).exists(r, r[0] <= ` + n + ` && ` + n + ` <= r[1]))`
	return `(` + host + ` in ` + known + ` ? ` + image + ` in ` + known + `[` + host + `] : (` + parsed + `))`
}

// runsRelation renders the process-isolation relation of winsupport as
// CEL literals: known maps each build of the model to the builds of the
// model it runs; ranges maps each build of the model to the host versions
// that run it (hostRanges).
func runsRelation(m winsupport.Model) (known, ranges string) {
	var k, r []string
	for _, h := range m.Builds() {
		var runs []string
		for _, i := range m.Builds() {
			if winsupport.BuildRuns(h.Build, i.Build, winsupport.ProcessIsolation) {
				runs = append(runs, i.Build)
			}
		}
		k = append(k, celString(h.Build)+": "+celList(runs))
	}
	for _, i := range m.Builds() {
		var spans []string
		for _, sp := range hostRanges(i.Build) {
			spans = append(spans, fmt.Sprintf("[%d, %d]", sp[0], sp[1]))
		}
		r = append(r, celString(i.Build)+": ["+strings.Join(spans, ", ")+"]")
	}
	sort.Strings(k)
	sort.Strings(r)
	return "{" + strings.Join(k, ", ") + "}", "{" + strings.Join(r, ", ") + "}"
}

// hostRanges are the host versions that run an image build under process
// isolation (winsupport.HostRuns), as [low, high] ranges of
// major<<24 | minor<<16 | build. HostRuns needs the host's major.minor
// to be the image's, so only those hosts are scanned.
func hostRanges(image string) [][2]int {
	img := winsupport.ParseOSVersion(image)
	base := int(img.Major)<<24 | int(img.Minor)<<16
	var out [][2]int
	lo := -1
	for b := 0; b <= 0x10000; b++ {
		runs := b <= 0xffff && winsupport.HostRuns(winsupport.OSVersion{Major: img.Major, Minor: img.Minor, Build: uint16(b)}, img, winsupport.ProcessIsolation)
		switch {
		case runs && lo < 0:
			lo = b
		case !runs && lo >= 0:
			out = append(out, [2]int{base | lo, base | (b - 1)})
			lo = -1
		}
	}
	return out
}
