package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// WindowsBuildUnsupported: a build the Kubernetes release does not support
// as a node OS.
var WindowsBuildUnsupported = &rule.Rule{
	ID:       "windows-build-unsupported",
	Title:    "Windows build is not supported by this Kubernetes version",
	Severity: rule.Warning,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports image tags and node.kubernetes.io/windows-build pins (nodeSelector, required node affinity, RuntimeClass) naming a Windows Server build that the selected Kubernetes version does not support as a node OS: Windows Server 2019 after 1.33, Windows Server 2025 before 1.32, the Semi-Annual Channel builds outside their releases. Images of end-of-life Semi-Annual Channel builds are left to sac-image-eol; HostProcess and Hyper-V workloads' images are not reported, since they do not need a node of the image's build.",
		Why:  "Under process isolation an image runs only on a node of its build, so an image (or a pin) for a build this Kubernetes release does not support as a node OS needs an unsupported node: SIG Windows does not test or fix that combination, and upgrading the cluster strands the workload.",
		Fix:  "Rebuild the image on a supported LTSC base (ltsc2022 or ltsc2025) and pin that build, or check against the Kubernetes version the cluster really runs (--kubernetes-version).",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (Kubernetes support by Windows Server version)",
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (v1.35 supports Windows Server 2022 and 2025)",
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (v1.18-v1.20 support Windows Server 2019 and SAC releases)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if f.Is(target.Linux) {
			return
		}
		if !f.HostProcess && !f.HyperV {
			pools, pins := buildHosts(p)
			eachImage(p, func(img winsupport.Image, path *field.Path) {
				if b := img.Build; b != nil && !(b.Channel == winsupport.SAC && b.EOL) && !p.Model.NodeSupported(*b) {
					if mismatched(pools, pins, b.Build) {
						return // image-build-mismatch says both in one finding
					}
					built := buildName(p, b.Build)
					if img.BuildInferred {
						built += " (inferred from its tag)"
					}
					p.Reportf(path, "image %q is built for %s, %s", img.Ref, built, unsupportedText(p, *b))
				}
			})
		}
		for _, pin := range pinnedBuilds(p) {
			if b, ok := p.Model.BuildByNumber(pin.Build); ok && b.Build == pin.Build && !p.Model.NodeSupported(b) {
				p.Reportf(pin.Path, "%s %s pins %s, %s", pin.Label, pin.Value, b.Name, unsupportedText(p, b))
			}
		}
	},
}

func unsupportedText(p *rule.Pass, b winsupport.Build) string {
	return fmt.Sprintf("which Kubernetes %s does not support as a node OS (supported in %s)", p.Model.V, b.Supports)
}

// SACImageEOL: Semi-Annual Channel images are out of support.
var SACImageEOL = &rule.Rule{
	ID:       "sac-image-eol",
	Title:    "Image is built on an end-of-life Semi-Annual Channel release",
	Severity: rule.Warning,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports container images whose tag names an end-of-life Windows Server Semi-Annual Channel build (1709, 1803, 1903, 1909, 2004, 20H2) in any tag form (:1803, -1803, windowsservercore-20H2; for an image of unknown platform, only when the workload is Windows-bound, so a Linux 1903 version tag is not misread) and suggests the LTSC tag: the newest LTSC build of the cluster's Windows pools that the selected Kubernetes version supports, or else the newest it supports. When the image's build is known (a Windows image, not a build guessed from a private tag) and a Windows pool the workload can land on (or a build it pins) does not run it, the finding is an error that says so too: image-build-mismatch leaves such images to this rule, one finding per cause.",
		Why:  "Semi-Annual Channel releases had 18 months of support and are all out of it: their images get no security updates, and no supported Kubernetes node runs those builds, so under process isolation the image cannot start on a current node.",
		Fix:  "Move to the LTSC tag (mcr.microsoft.com/windows/servercore:ltsc2022, nanoserver:ltsc2022); `winkube fix --unsafe` rewrites Microsoft images' tags, as a base image change needs a rebuild and a test.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (SAC 1903-20H2: deprecated / EOL; use LTSC releases only)",
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (the SAC releases of Kubernetes 1.18-1.20)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		var pools, pins []buildHost
		if !f.HostProcess && schedulableOn(f, target.Windows) && !f.Is(target.Linux) {
			pools, pins = buildHosts(p)
		}
		eachImage(p, func(img winsupport.Image, path *field.Path) {
			b, guessed := eolSAC(p, img)
			if b == nil {
				return
			}
			fd := rule.Finding{Path: rule.Path(path),
				Message: fmt.Sprintf("image %q is built for %s, an end-of-life Semi-Annual Channel release that gets no security updates", img.Ref, buildName(p, b.Build))}
			if bad := sacHosts(f, slicesConcat(pools, pins), b.Build); len(bad) > 0 && !guessed {
				// One finding per cause: image-build-mismatch leaves this
				// image to us, and we say both.
				fd.Message = fmt.Sprintf("image %q is built for %s, an end-of-life Semi-Annual Channel release that cannot start on %s",
					img.Ref, buildName(p, b.Build), hostList(bad, false))
				fd.Hint = "the release gets no security updates, and under process isolation a container starts only on a host that runs its build; elsewhere: " + winsupport.HostOSMismatch
				fd = fd.WithSeverity(rule.Error)
			}
			if ltsc, ok := p.Model.LTSCFor(p.Cluster.WindowsBuilds()); ok {
				if ref, ok := p.Model.Retag(img.Ref, ltsc); ok {
					fd.Message += fmt.Sprintf("; use the LTSC tag %q", ref)
					if strings.HasPrefix(ref, "mcr.microsoft.com/") {
						// Microsoft publishes every LTSC tag of its images;
						// elsewhere the tag may not exist.
						fd.Fix = &rule.Fix{Title: "use " + ref, Edits: []rule.Edit{{Op: rule.Set, Path: rule.Path(path), Value: ref}}}
					}
				} else {
					fd.Message += fmt.Sprintf("; rebuild it on %s (tag %s)", ltsc.Name, ltsc.Tags[0])
				}
			}
			p.Report(fd)
		})
	},
}

// eolSAC returns the end-of-life Semi-Annual Channel build an image is
// built for, nil if it is not. guessed says the build was read from the
// tag of an image of unknown platform in a Windows workload
// ("app:1.0-1803"): enough to warn of the release, not to say where the
// image cannot start.
func eolSAC(p *rule.Pass, img winsupport.Image) (b *winsupport.Build, guessed bool) {
	b = img.Build
	if b == nil && p.Target.Is(target.Windows) {
		b, guessed = p.Model.WindowsTagBuild(img.Ref), true
	}
	if b == nil || b.Channel != winsupport.SAC || !b.EOL {
		return nil, false
	}
	return b, guessed
}

// sacHosts returns the hosts the workload can land on that do not run an
// image of build b, under the workload's isolation.
func sacHosts(f *target.Facts, hosts []buildHost, b string) []buildHost {
	var bad []buildHost
	for _, h := range hosts {
		if !winsupport.BuildRuns(h.Build, b, winsupport.ProcessIsolation) && !(f.HyperV && winsupport.BuildRuns(h.Build, b, winsupport.HyperVIsolation)) {
			bad = append(bad, h)
		}
	}
	return bad
}

// mismatched reports whether an image of build b can land on a host of
// another build, so that image-build-mismatch reports it.
func mismatched(pools, pins []buildHost, b string) bool {
	for _, h := range append(append([]buildHost(nil), pools...), pins...) {
		if h.Build != b {
			return true
		}
	}
	return false
}
