package policy

import (
	"slices"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// specExpr is the pod spec of every matched kind; the API server's own
// validation has run, so a template is there.
const specExpr = `(object.kind == 'Pod' ? object.spec : object.kind == 'PodTemplate' ? object.template.spec : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec : object.spec.template.spec)`

// mayFireCondition is the match condition that skips a workload no
// exported rule can fire on, before the policy's variables and
// validations are evaluated (each skipped policy spares the API server
// three CEL activations: validations, messages, audit annotations). It is
// derived from the checks' own preconditions:
//
//   - every check but missing-os-pin, toleration-without-selector,
//     linux-daemonset-unpinned, conflicting-os-signals,
//     windows-image-on-linux, windows-build-unsupported and sac-image-eol
//     needs variables.os == 'windows', which needs a Windows signal: a pin
//     admitting Windows nodes, spec.os.name windows, HostProcess or a
//     Windows image;
//   - the three placement rules need a workload that Windows nodes admit
//     (variables.schedWindows) or, for missing-os-pin, one not pinned, in
//     a hybrid cluster: a Linux pin (nodeSelector, or every required
//     affinity term) rules both out, and so does a cluster without Windows
//     pools or hybrid flag;
//   - conflicting-os-signals under a Linux pin needs spec.os.name windows
//     or HostProcess; windows-image-on-linux a Windows image;
//     windows-build-unsupported and sac-image-eol an image whose tag names
//     a Windows build, or a windows-build or cloud OS label pin
//     (winsupport.CloudOSLabelKeys), which is a signal whatever its value;
//   - on any workload, gmsa-missing-credential-spec-name needs a
//     gmsaCredentialSpec in windowsOptions or a pod template annotation
//     naming gmsa-credential-spec (a superset of its alpha annotations),
//     windows-ignored-annotation one of its annotations.
//
// The Windows-image test is a superset of winsupport.Model.ParseImage's
// Windows verdict and of a tag naming a build (imgPlatforms, imgBuilds):
// the image, lowercased, contains a Windows image-table prefix (without
// its docker.io/ part, as a bare reference writes it), "windows",
// "nanoserver", "servercore", "ltsc", "10.0.", "1809", or a third
// party's year word (win2022, ws2025). A false positive only
// costs the full evaluation. test/e2e/policy's differential test holds
// the skip to lint (no decision may change).
//
// noWindows is CEL for "the cluster has no Windows pool and is not
// hybrid", over the params (ValidatingAdmissionPolicy) or a literal
// (Kyverno, which carries the cluster in the policy).
func mayFireCondition(noWindows string) string {
	osLabels := []string{cluster.LabelOS, cluster.LabelOSBeta}
	osOnly := celList(osLabels)
	// Every other label the policies read as an OS pin (the package's
	// osKeys: the windows-build label, the platforms' OS labels such as AKS
	// os-sku) pins a Windows build by its key alone: any of them is a
	// signal, whatever its value.
	var buildLabels []string
	for _, k := range osKeys {
		if !slices.Contains(osLabels, k) {
			buildLabels = append(buildLabels, k)
		}
	}
	pins := celList(buildLabels)
	terms := `s.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([])`
	// An OS expression that no Windows node's labels satisfy.
	excludesWindows := `(e.key in ` + osOnly + ` && ((e.operator == 'In' && !e.?values.orValue([]).exists(v, v == 'windows')) || (e.operator == 'NotIn' && e.?values.orValue([]).exists(v, v == 'windows'))))`
	linuxPin := `(s.?nodeSelector.orValue({}).exists(k, k in ` + osOnly + ` && s.nodeSelector[k] == 'linux') || ` +
		`(size(` + terms + `) > 0 && ` + terms + `.all(t, t.?matchExpressions.orValue([]).exists(e, ` + excludesWindows + `))))`
	ctrs := `(s.?initContainers.orValue([]) + s.?containers.orValue([]) + s.?ephemeralContainers.orValue([]))`
	signal := `(s.?os.?name.orValue('') == 'windows' || ` +
		`s.?securityContext.?windowsOptions.?hostProcess.orValue(false) || ` +
		ctrs + `.exists(c, c.?securityContext.?windowsOptions.?hostProcess.orValue(false) || ` + imageNeedles(winsupport.Default(), `c.?image.orValue('').lowerAscii()`) + `) || ` +
		identitySignal(ctrs) + ` || ` +
		`s.?nodeSelector.orValue({}).exists(k, k in ` + pins + ` || (k in ` + osOnly + ` && s.nodeSelector[k] != 'linux')) || ` +
		terms + `.exists(t, t.?matchExpressions.orValue([]).exists(e, e.key in ` + pins + ` || (e.key in ` + osOnly + ` && !` + excludesWindows + `))))`
	return `[` + specExpr + `].all(s, !((` + linuxPin + ` || ` + noWindows + `) && !` + signal + `))`
}

// imageNeedles is CEL for "the lowercased image reference img contains a
// Windows needle" (see mayFireCondition).
func imageNeedles(m winsupport.Model, img string) string {
	return celList(windowsNeedles(m)) + `.exists(n, ` + img + `.contains(n))`
}

// windowsNeedles are the strings one of which every image reference
// ParseImage calls Windows, or whose tag names a Windows build, contains
// once lowercased (TestWindowsNeedles).
func windowsNeedles(m winsupport.Model) []string {
	set := map[string]bool{"windows": true, "nanoserver": true, "servercore": true, "ltsc": true, "10.0.": true}
	// Third parties' tags (winsupport's thirdPartyBuild): 1809 and
	// 1809-jan2020, and year words; windows2019, windowsserver2022,
	// servercore2019 and nanoserver2022 hold a needle already.
	set["1809"] = true
	for _, y := range winsupport.ThirdPartyYears() {
		set["win"+y] = true
		set["ws"+y] = true
	}
	for _, r := range m.ImagePrefixes() {
		if r.Platform != winsupport.PlatformWindows {
			continue
		}
		p := strings.ToLower(r.Prefix)
		p = strings.TrimPrefix(strings.TrimPrefix(p, "docker.io/"), "library/")
		set[p] = true
	}
	var needles []string
	for n := range set {
		needles = append(needles, n)
	}
	sort.Strings(needles)
	// Drop needles another needle is a part of: "windows" covers
	// "mcr.microsoft.com/windows/".
	var kept []string
	for _, n := range needles {
		covered := false
		for _, o := range needles {
			if o != n && strings.Contains(n, o) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, n)
		}
	}
	return kept
}

// identitySignal is CEL for "the workload configures gMSA or names an
// annotation windows-ignored-annotation reports": windowsOptions'
// gmsaCredentialSpec on the pod spec s or a container, or a pod template
// annotation key containing gmsa-credential-spec or in the rule's list.
func identitySignal(ctrs string) string {
	return `(s.?securityContext.?windowsOptions.?gmsaCredentialSpec.hasValue() || ` + ctrs + `.exists(c, c.?securityContext.?windowsOptions.?gmsaCredentialSpec.hasValue()) || ` +
		templateAnnotations + `.exists(k, k.contains('gmsa-credential-spec') || k in ` + celList(rules.IgnoredWindowsAnnotationKeys()) + `))`
}
