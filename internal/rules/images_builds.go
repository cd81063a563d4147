package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// ImageBuildMismatch: under process isolation the image's Windows build
// must be the node's.
var ImageBuildMismatch = &rule.Rule{
	ID:       "image-build-mismatch",
	Title:    "Image's Windows build differs from the node's",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image tag names a Windows build (ltsc2019, 1809, ltsc2022, 10.0.20348, ...) that differs from the build of a Windows pool the workload can land on (the cluster's Windows pools its node.kubernetes.io/windows-build constraints admit), or from the build it pins even when the cluster has no such pool. HostProcess containers are exempt: they run on the host, not in a container OS. Under a Hyper-V RuntimeClass an older image on a newer host is allowed and reported as info, since upstream Kubernetes does not support Hyper-V isolation.",
		Why:  "A process-isolated Windows container shares the host's kernel, so its image must be built for the host's exact build. On another build the container fails to start with `the container operating system does not match the host operating system`, after the image (gigabytes for Server Core) has been pulled.",
		Fix:  "Use the image tag for the node's build, or pin the workload to the image's build (nodeSelector node.kubernetes.io/windows-build), or publish a multi-arch manifest list with one image per build.",
		Sources: []string{
			"seed 002 (build compatibility; the error message)",
			"seed 000 (process-isolated images by host OS; Hyper-V runs older images)",
			"seed 003 (Kubernetes does not support Hyper-V isolation; windows-build values)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if f.HostProcess || !schedulableOn(f, target.Windows) || f.Is(target.Linux) {
			return
		}
		pools, pins := buildHosts(p)
		eachImage(p, func(img winsupport.Image, path *field.Path) {
			if img.Build == nil || img.Platform != winsupport.PlatformWindows {
				return
			}
			reportBuildMismatch(p, img, path, pools, pins)
		})
	},
}

// buildHost is a Windows build the workload can land on.
type buildHost struct {
	Label, Build string
}

// buildHosts returns the cluster's Windows pools the workload's build
// constraints admit, and the builds it pins that no pool runs.
func buildHosts(p *rule.Pass) (pools, pins []buildHost) {
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if pool.WindowsBuild != "" && buildAllowed(p, pool) {
			pools = append(pools, buildHost{fmt.Sprintf("Windows pool %q (%s)", pool.Name, pool.WindowsBuild), buildNumber(p, pool.WindowsBuild)})
		}
	}
	for _, pin := range pinnedBuilds(p) {
		b := buildNumber(p, pin.Build)
		if (p.Target.Builds != nil && !contains(p.Target.Builds, b)) || hostHas(pools, b) || hostHas(pins, b) {
			continue
		}
		pins = append(pins, buildHost{"the pinned build " + b, b})
	}
	return pools, pins
}

func hostHas(hs []buildHost, b string) bool {
	for _, h := range hs {
		if h.Build == b {
			return true
		}
	}
	return false
}

func reportBuildMismatch(p *rule.Pass, img winsupport.Image, path *field.Path, pools, pins []buildHost) {
	f := p.Target
	var badPools, badPins, hyperv []buildHost
	for _, group := range []struct {
		hosts []buildHost
		bad   *[]buildHost
	}{{pools, &badPools}, {pins, &badPins}} {
		for _, h := range group.hosts {
			switch {
			case h.Build == img.Build.Build:
			case f.HyperV && buildSeq(h.Build) > buildSeq(img.Build.Build):
				hyperv = append(hyperv, h)
			default:
				*group.bad = append(*group.bad, h)
			}
		}
	}
	var where []string
	if len(badPools) > 0 {
		where = append(where, "the workload can land on "+hostList(badPools, false))
	}
	if len(badPins) > 0 {
		where = append(where, "the workload pins node.kubernetes.io/windows-build "+hostList(badPins, true))
	}
	built := fmt.Sprintf("image %q is built for %s", img.Ref, buildName(p, img.Build.Build))
	if b := *img.Build; len(where) > 0 && !(b.Channel == winsupport.SAC && b.EOL) && !p.Model.NodeSupported(b) {
		// One finding per cause: windows-build-unsupported leaves this image to us.
		built += fmt.Sprintf(" (unsupported as a node OS by Kubernetes %s)", p.Model.V)
	}
	if len(where) > 0 {
		how := "under process isolation"
		if f.HyperV {
			how = "even with Hyper-V isolation a container cannot run a newer build than its host, and"
		}
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf("%s but %s; %s its containers fail to start there: %s", built, strings.Join(where, " and "), how, winsupport.HostOSMismatch),
			Hint:    "use the image tag for the node's build, or pin node.kubernetes.io/windows-build to " + img.Build.Build})
	}
	if len(hyperv) > 0 {
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf("%s, older than %s; it runs there only because RuntimeClass %q selects Hyper-V isolation, which upstream Kubernetes does not support", built, hostList(hyperv, false), f.RuntimeClassName),
		}.WithSeverity(rule.Info))
	}
}

// hostList names hosts for a message, by label or by bare build.
func hostList(hs []buildHost, bare bool) string {
	labels := make([]string, len(hs))
	for i, h := range hs {
		labels[i] = h.Label
		if bare {
			labels[i] = h.Build
		}
	}
	if len(labels) == 1 {
		return labels[0]
	}
	return strings.Join(labels[:len(labels)-1], ", ") + " and " + labels[len(labels)-1]
}
