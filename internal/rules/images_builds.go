package rules

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// The message templates of image-build-mismatch's error, which the
// exported CEL builds from too (internal/policy checks_imagebuild.go).
const (
	ImageBuiltForMsg        = "image %q is built for %s"
	BuildInferredMsg        = " (inferred from its tag)"
	BuildNodeUnsupportedMsg = " (unsupported as a node OS by Kubernetes %s)"
	BuildLandsOnMsg         = "the workload can land on %s"
	BuildPinsMsg            = "the workload pins node.kubernetes.io/windows-build %s"
	BuildMismatchMsg        = "%s but %s; %s its containers fail to start there: %s"
	ProcessIsolationMsg     = "under process isolation"
)

// ImageBuildMismatch: the Windows build of a node the workload can land
// on must run the image's build.
var ImageBuildMismatch = &rule.Rule{
	ID:       "image-build-mismatch",
	Title:    "Image's Windows build does not run on the node's",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image is built for a Windows build (by its tag: ltsc2019, 1809, ltsc2022, 10.0.20348, ...; or, with --resolve-images, by the os.version of the registry's platform entries) that a Windows pool the workload can land on does not run (the cluster's Windows pools its node.kubernetes.io/windows-build constraints admit, or the build it pins even when the cluster has no such pool). The rule is containerd's: before Windows Server 2022 the builds must be equal; from 2022 on a host runs images from the previous LTSC up to its own build, so an ltsc2022 image runs on Windows Server 2025. With registry data the node pulls the matching entry with the greatest os.version, ignoring the win32k feature. HostProcess containers are exempt: they run on the host, not in a container OS. Images of an end-of-life Semi-Annual Channel build are left to sac-image-eol, which says both in one finding. Under a Hyper-V RuntimeClass an older image on a newer host is allowed and reported as info, since upstream Kubernetes does not support Hyper-V isolation.",
		Why:  "A process-isolated Windows container shares the host's kernel, so its image must be built for a build the host's kernel serves. Otherwise containerd finds no entry of the image index for the node (`no match for platform in manifest: not found`) or the container fails to start with `the container operating system does not match the host operating system`, after the image (gigabytes for Server Core) has been pulled.",
		Fix:  "Use an image for a build the node runs (on Windows Server 2025: ltsc2022 or ltsc2025), pin the workload to the image's build (nodeSelector node.kubernetes.io/windows-build), or publish a multi-platform index with one entry per build.",
		Sources: []string{
			"containerd/platforms v1.0.0-rc.1 platform_windows_compat.go (checkWindowsHostAndContainerCompat, windowsMatchComparer, win32k stripped)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (host OS compatibility tables)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (build compatibility; the error message)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (process-isolated images by host OS; Hyper-V runs older images)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container (Kubernetes does not support Hyper-V isolation; windows-build values)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if f.HostProcess || !schedulableOn(f, target.Windows) || f.Is(target.Linux) {
			return
		}
		pools, pins := buildHosts(p)
		eachImageRef(p, func(ref string, path *field.Path) {
			if b, _ := eolSAC(p, withRegistry(p, p.Model.ParseImage(ref))); b != nil {
				return // one finding per cause: sac-image-eol says both
			}
			if r, ok := registryImage(p, ref); ok {
				reportRegistryMismatch(p, r, path, pools, pins)
				return
			}
			img := p.Model.ParseImage(ref)
			if img.Build == nil || img.Platform != winsupport.PlatformWindows {
				return
			}
			reportBuildMismatch(p, img, path, pools, pins)
		})
	},
}

// buildHost is a Windows build the workload can land on.
type buildHost struct {
	Label, Build, Arch string
}

// buildHosts returns the cluster's Windows pools the workload's build
// constraints admit, and the builds it pins that no pool runs.
func buildHosts(p *rule.Pass) (pools, pins []buildHost) {
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if pool.WindowsBuild != "" && buildAllowed(p, pool) {
			pools = append(pools, buildHost{fmt.Sprintf("Windows pool %q (%s)", pool.Name, pool.WindowsBuild), buildNumber(p.Model, pool.WindowsBuild), pool.Arch})
		}
	}
	for _, pin := range pinnedBuilds(p) {
		b := buildNumber(p.Model, pin.Build)
		if (p.Target.Builds != nil && !slices.Contains(p.Target.Builds, b)) || hostHas(pools, b) || hostHas(pins, b) {
			continue
		}
		pins = append(pins, buildHost{"the pinned build " + b, b, ""})
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
			case winsupport.BuildRuns(h.Build, img.Build.Build, winsupport.ProcessIsolation):
			case f.HyperV && winsupport.BuildRuns(h.Build, img.Build.Build, winsupport.HyperVIsolation):
				hyperv = append(hyperv, h)
			default:
				*group.bad = append(*group.bad, h)
			}
		}
	}
	var where []string
	if len(badPools) > 0 {
		where = append(where, fmt.Sprintf(BuildLandsOnMsg, hostList(badPools, false)))
	}
	if len(badPins) > 0 {
		where = append(where, fmt.Sprintf(BuildPinsMsg, hostList(badPins, true)))
	}
	built := fmt.Sprintf(ImageBuiltForMsg, img.Ref, buildName(p, img.Build.Build))
	switch {
	case p.Images != nil:
		built += " (by its tag: the registry could not be asked)"
	case img.BuildInferred:
		built += BuildInferredMsg
	}
	if b := *img.Build; len(where) > 0 && !(b.Channel == winsupport.SAC && b.EOL) && !p.Model.NodeSupported(b) {
		// One finding per cause: windows-build-unsupported leaves this image to us.
		built += fmt.Sprintf(BuildNodeUnsupportedMsg, p.Model.V)
	}
	if len(where) > 0 {
		how := ProcessIsolationMsg
		if f.HyperV {
			how = "even with Hyper-V isolation a container cannot run a newer build than its host, and"
		}
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf(BuildMismatchMsg, built, strings.Join(where, " and "), how, winsupport.HostOSMismatch),
			Hint:    runnableHint(p, slicesConcat(badPools, badPins), f.HyperV) + ", or pin node.kubernetes.io/windows-build to " + img.Build.Build})
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
