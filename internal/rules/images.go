package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

var imageRules = []*rule.Rule{
	ImageBuildMismatch,
	ImageUnresolved,
	WindowsBuildUnsupported,
	SACImageEOL,
	WindowsImageOnLinux,
	LinuxImageOnWindows,
	HyperVRuntimeClass,
	RuntimeClassIsolationMismatch,
	RuntimeClassBuildUnsupported,
	WindowsIgnoredAnnotation,
	RetiredWindowsImage,
	WindowsImageRepositoryDeleted,
	WindowsImageTagUnpublished,
}

// eachImage calls fn for every container whose image the model can place.
func eachImage(p *rule.Pass, fn func(img winsupport.Image, path *field.Path)) {
	eachImageRef(p, func(ref string, path *field.Path) {
		fn(withRegistry(p, p.Model.ParseImage(ref)), path)
	})
}

// eachImageRef calls fn for every container that names an image, with the
// reference as written and the path of its image field.
func eachImageRef(p *rule.Pass, fn func(ref string, path *field.Path)) {
	winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
		if c.Image != "" {
			fn(c.Image, cp.Child("image"))
		}
	})
}

// WindowsImageOnLinux: a Windows image cannot run on a Linux node.
var WindowsImageOnLinux = &rule.Rule{
	ID:       "windows-image-on-linux",
	Title:    "Windows image in a Linux workload",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image is Windows-only (a Windows base image, a Windows repository, or a tag naming a Windows variant or build) in a workload bound to Linux by its scheduling pin or spec.os.name.",
		Why:  "A container runs the host's kernel; a Windows image has no Linux variant, so on a Linux node the pull fails with `no match for platform in manifest` and the pod never starts.",
		Fix:  "Pin the workload to Windows (nodeSelector kubernetes.io/os: windows, the Windows toleration, spec.os.name: windows), or use the image's Linux variant.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (a Windows container can only run on Windows and a Linux container only on Linux)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images (Windows base images)",
		},
	},
	Workload: otherOSImage(linuxOS, windowsOS, "pin the workload to windows, or use a Linux image"),
}

// LinuxImageOnWindows: a Linux image cannot run on a Windows node.
var LinuxImageOnWindows = &rule.Rule{
	ID:       "linux-image-on-windows",
	Title:    "Linux-only image in a Windows workload",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image is published for Linux only (alpine, busybox, nginx, redis, node-exporter, the Linux CNI and kube-proxy images, ...) in a Windows-bound workload. Multi-platform manifest lists (pause, agnhost, the .NET aspnet, runtime and sdk images, CSI sidecars) are never reported.",
		Why:  "Windows nodes run only Windows containers: the runtime finds no Windows variant of a Linux-only image, the pull fails with `no match for platform in manifest` and the pod stays in ImagePullBackOff. Sidecars copied from Linux manifests (busybox init containers, log shippers) are the usual culprits.",
		Fix:  "Use a Windows or multi-platform image (mcr.microsoft.com/windows/nanoserver or servercore, a Windows build of the tool), or move the container to a Linux workload.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (a Linux container can only run on Linux)",
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (node-exporter and Fluentd are Linux only; use the Windows counterparts)",
		},
	},
	Workload: otherOSImage(windowsOS, linuxOS, "use a Windows or multi-platform image"),
}

// osPlatform is an OS as a workload is bound to it, as an image platform
// and as messages name it.
type osPlatform struct {
	os       target.OS
	platform winsupport.Platform
	name     string
}

var (
	linuxOS   = osPlatform{target.Linux, winsupport.PlatformLinux, "Linux"}
	windowsOS = osPlatform{target.Windows, winsupport.PlatformWindows, "Windows"}
)

// otherOSImage is the Workload run of windows-image-on-linux and
// linux-image-on-windows: in a workload bound to one OS, the images made
// only for the other.
func otherOSImage(bound, image osPlatform, hint string) func(*rule.Pass) {
	return func(p *rule.Pass) {
		f := p.Target
		if !f.Is(bound.os) {
			return
		}
		eachImage(p, func(img winsupport.Image, path *field.Path) {
			if img.Platform != image.platform {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(path),
				Message: fmt.Sprintf("image %q is %s-only (%s) but the workload is bound to %s (from %s); on a %s node the pull fails: %s", img.Ref, image.name, img.Source, bound.name, f.By, bound.name, winsupport.NoPlatformMatch),
				Hint:    hint})
		})
	}
}
