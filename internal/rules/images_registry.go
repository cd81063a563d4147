package rules

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// ImageUnresolved: with --resolve-images, an image the registry could not
// describe is checked by its tag only.
var ImageUnresolved = &rule.Rule{
	ID:       "image-unresolved",
	Title:    "Image could not be resolved in its registry",
	Severity: rule.Warning,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "With --resolve-images (lint, simulate), reports containers whose image the registry could not describe: the repository or tag does not exist, the registry wants credentials or refused them, it rate-limited or timed out, or what the tag names is not an image. The other image rules then fall back to the tag and say so in their findings. Without --resolve-images the rule does nothing.",
		Why:  "Whether a Windows container starts depends on the platforms the registry publishes for the image (its OS, architecture and os.version); an image that cannot be resolved cannot be checked, and the node will meet the same error when it pulls.",
		Fix:  "Fix the reference, log in (docker login writes ~/.docker/config.json; or --registry-config), use --insecure-registry HOST for a plain-HTTP registry, or retry later; --offline answers from the cache of earlier runs.",
		Sources: []string{
			"https://github.com/opencontainers/distribution-spec/blob/v1.1.0/spec.md (manifests, indexes and their error codes)",
			"containerd/platforms v1.0.0-rc.1 platforms.go (the platform fields a node matches on)",
		},
	},
	Workload: func(p *rule.Pass) {
		if p.Images == nil {
			return
		}
		eachImageRef(p, func(ref string, path *field.Path) {
			if _, err := p.Images.Lookup(ref); err != nil {
				p.Report(rule.Finding{Path: rule.Path(path),
					Message: fmt.Sprintf("image %q could not be resolved: %v; its platforms are judged by its tag only", ref, err),
					Hint:    unresolvedHint(err)})
			}
		})
	},
}

// ResolveHinter is implemented by lookup errors that know what to do.
type ResolveHinter interface{ ResolveHint() string }

func unresolvedHint(err error) string {
	var h ResolveHinter
	if errors.As(err, &h) {
		return h.ResolveHint()
	}
	return "check the reference and the registry, or run without --resolve-images"
}

// registryImage returns what the registry says of ref, when the run
// resolves images and the lookup succeeded (failures are image-unresolved
// findings).
func registryImage(p *rule.Pass, ref string) (*winsupport.ResolvedImage, bool) {
	if p.Images == nil {
		return nil, false
	}
	r, err := p.Images.Lookup(ref)
	return r, err == nil && r != nil
}

// withRegistry replaces the tag table's classification of img by the
// registry's platforms when the run resolves images.
func withRegistry(p *rule.Pass, img winsupport.Image) winsupport.Image {
	r, ok := registryImage(p, img.Ref)
	if !ok {
		return img
	}
	img.Platform, img.Source, img.Build = r.Platform(), r.Describe(), nil
	if b, ok := singleBuild(p, r); ok {
		img.Build = &b
	}
	return img
}

// singleBuild is the one known Windows build all of the image's Windows
// entries are for, if there is one.
func singleBuild(p *rule.Pass, r *winsupport.ResolvedImage) (winsupport.Build, bool) {
	var out winsupport.Build
	for _, e := range r.Platforms {
		if e.OS != "windows" {
			continue
		}
		b, ok := p.Model.BuildByNumber(e.OSVersion)
		if !ok || (out.Build != "" && out.Build != b.Build) {
			return winsupport.Build{}, false
		}
		out = b
	}
	return out, out.Build != ""
}

// reportRegistryMismatch checks the registry's Windows entries against
// each build the workload can land on, as containerd picks them.
func reportRegistryMismatch(p *rule.Pass, r *winsupport.ResolvedImage, path *field.Path, pools, pins []buildHost) {
	if r.Platform() != winsupport.PlatformWindows && r.Platform() != winsupport.PlatformMulti {
		return // no Windows entry: linux-image-on-windows
	}
	var bad, hyperv []buildHost
	for _, h := range slicesConcat(pools, pins) {
		host := winsupport.Host{OS: "windows", Architecture: h.Arch, Build: h.Build}
		if _, ok := host.Pick(r.Platforms, winsupport.ProcessIsolation); ok {
			continue
		}
		if _, ok := host.Pick(r.Platforms, winsupport.HyperVIsolation); ok && p.Target.HyperV {
			hyperv = append(hyperv, h)
			continue
		}
		bad = append(bad, h)
	}
	if len(bad) > 0 {
		how := "under process isolation"
		if p.Target.HyperV {
			how = "even under Hyper-V isolation"
		}
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf("image %q: %s; none runs on %s %s, so the pull fails there: %s: not found", r.Ref, r.Describe(), hostList(bad, false), how, winsupport.NoPlatformMatch),
			Hint:    runnableHint(p, bad, p.Target.HyperV) + ", or pin node.kubernetes.io/windows-build to a build the image has"})
	}
	if len(hyperv) > 0 {
		p.Report(rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf("image %q: %s; it runs on %s only because RuntimeClass %q selects Hyper-V isolation, which upstream Kubernetes does not support", r.Ref, r.Describe(), hostList(hyperv, false), p.Target.RuntimeClassName),
		}.WithSeverity(rule.Info))
	}
}

func slicesConcat(a, b []buildHost) []buildHost {
	return append(append([]buildHost(nil), a...), b...)
}

// runnableHint names the image builds the hosts run: "use an image built
// for a build Windows Server 2025 (10.0.26100) runs (ltsc2022, ltsc2025)".
func runnableHint(p *rule.Pass, hosts []buildHost, hyperV bool) string {
	iso := winsupport.ProcessIsolation
	if hyperV {
		iso = winsupport.HyperVIsolation
	}
	var parts []string
	for _, h := range hosts {
		var tags []string
		for _, b := range p.Model.RunnableBuilds(h.Build, iso) {
			if len(b.Tags) > 0 {
				tags = append(tags, b.Tags[0])
			}
		}
		if len(tags) > 0 {
			parts = append(parts, fmt.Sprintf("%s runs %s images", h.Build, strings.Join(tags, ", ")))
		}
	}
	if len(parts) == 0 {
		return "use an image built for the node's build"
	}
	return "use an image built for a build the node runs (" + strings.Join(parts, "; ") + ")"
}
