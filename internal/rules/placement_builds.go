package rules

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// MissingBuildPinMsg is missing-windows-build-pin's message (the pools);
// the exported admission policy builds it from the same template.
const MissingBuildPinMsg = "Windows workload has no node.kubernetes.io/windows-build constraint and can land on Windows pools %s; under process isolation its images must match the node's build"

// MissingWindowsBuildPin: in a cluster with several Windows builds, a
// process-isolated pod must be kept to the build its image was made for.
var MissingWindowsBuildPin = &rule.Rule{
	ID:       "missing-windows-build-pin",
	Title:    "Windows workload is not pinned to a Windows build",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports process-isolated Windows workloads (not HostProcess, not Hyper-V) with no node.kubernetes.io/windows-build constraint in the nodeSelector, required node affinity or RuntimeClass, when the Windows pools they can reach (build constraints and tolerated taints considered) run more than one Windows build. Workloads whose images are all multi-platform manifest lists with no build in the tag are left alone: the runtime pulls the variant that matches the node.",
		Why:  "Under process isolation a container shares the host's kernel, so the image's Windows build must equal the node's. Without a build pin the scheduler spreads the pods over every Windows build, and those on the wrong build fail to start with `the container operating system does not match the host operating system`.",
		Fix:  "Add nodeSelector node.kubernetes.io/windows-build with the build of the images (winkube fix does when the image tags name one build the cluster runs), or use a RuntimeClass per build whose scheduling sets it.",
		Sources: []string{
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (node.kubernetes.io/windows-build; RuntimeClass per Windows build)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (mixed-build fleets: pin the build or ship a multi-arch manifest list)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if !f.Is(target.Windows) || f.HostProcess || f.HyperV || f.Builds != nil || !schedulableOn(f, target.Windows) {
			return
		}
		reachable, _ := windowsPools(p)
		builds := poolBuilds(p, reachable)
		if len(builds) < 2 {
			return
		}
		implied, multiOnly := imageBuilds(p)
		if multiOnly {
			return
		}
		sel := p.Workload.SpecPath.Child("nodeSelector")
		fd := rule.Finding{Path: rule.Path(sel),
			Message: fmt.Sprintf(MissingBuildPinMsg,
				poolList(reachable, func(pool cluster.Pool) string { return pool.WindowsBuild }))}
		switch {
		case len(implied) == 1 && slices.Contains(builds, implied[0]):
			fd.Fix = &rule.Fix{Title: "pin the workload to Windows build " + implied[0], Safe: true, Edits: []rule.Edit{
				{Op: rule.Set, Path: rule.Path(sel.Key(cluster.LabelWindowsBuild)), Value: implied[0]},
			}}
		case len(implied) == 1:
			fd.Hint = fmt.Sprintf("the image tags name %s, which no reachable Windows pool runs", buildName(p, implied[0]))
		default:
			fd.Hint = "add nodeSelector node.kubernetes.io/windows-build with the build the images were made for"
		}
		p.Report(fd)
	},
}

// poolBuilds returns the distinct builds of the pools, as 10.0.NNNNN.
func poolBuilds(p *rule.Pass, pools []cluster.Pool) []string {
	var out []string
	for _, pool := range pools {
		if b := buildNumber(p.Model, pool.WindowsBuild); b != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// imageBuilds returns the distinct Windows builds the workload's image tags
// imply, and whether every image is a multi-platform manifest list with no
// build in its tag (which the runtime resolves per node).
func imageBuilds(p *rule.Pass) (builds []string, multiOnly bool) {
	multiOnly = true
	winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, _ *field.Path) {
		img := p.Model.ParseImage(c.Image)
		if img.Build != nil && !slices.Contains(builds, img.Build.Build) {
			builds = append(builds, img.Build.Build)
		}
		if img.Platform != winsupport.PlatformMulti || img.Build != nil {
			multiOnly = false
		}
	})
	return builds, multiOnly
}
