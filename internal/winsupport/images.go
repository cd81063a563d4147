package winsupport

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// Image.Source's words when no image table row decides (the exported
// admission policies write the same words).
const (
	SourceRepositoryWindows = "the repository name says windows"
	SourceTagBuild          = "the tag names Windows Server build " // + the build
	SourceTagWindows        = "the tag names a Windows variant"
	SourceTagLinux          = "the tag names a Linux variant of a multi-platform repository"
)

// Platform says which OS an image can run on.
type Platform int

const (
	PlatformUnknown Platform = iota
	PlatformWindows          // Windows only
	PlatformLinux            // Linux only
	PlatformMulti            // a manifest list covering Linux and Windows
)

func (p Platform) String() string {
	return [...]string{"unknown", "windows", "linux", "multi-platform"}[p]
}

// Image is what the model knows of an image reference.
type Image struct {
	Ref      string // as written
	Repo     string // normalised repository, no tag or digest
	Tag      string // tag, "" when absent (implies latest) or pinned by digest only
	Platform Platform
	Build    *Build // the Windows build the tag implies, nil when none
	// BuildInferred: Build was read from a third party's naming in the
	// tag of a repository winkube does not know (1809-jan2020,
	// windows-2019-amd64, v2025.4-windows2019), not from a build tag
	// (ltsc2022, 10.0.20348): a reading of the publisher's naming, not a
	// fact of the image.
	BuildInferred bool
	Source        string // why the model classified it so
}

// knownImage is a row of the image table: a repository prefix and what it
// runs on.
type knownImage struct {
	Prefix   string
	Platform Platform
	Source   string
}

// imageTable lists repositories whose platform is known. Longest prefix
// wins; a tag that names a Windows build still makes the image Windows.
var imageTable = []knownImage{
	{"mcr.microsoft.com/windows/", PlatformWindows, "Windows base images (https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images-003)"},
	{"mcr.microsoft.com/dotnet/framework/", PlatformWindows, ".NET Framework images exist only for Windows (https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images)"},
	{"mcr.microsoft.com/powershell", PlatformMulti, "PowerShell images are published for Linux and Nano Server"},
	{"mcr.microsoft.com/dotnet/aspnet", PlatformMulti, ".NET images: manifest lists with Linux and Nano Server (https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images)"},
	{"mcr.microsoft.com/dotnet/runtime", PlatformMulti, ".NET images: manifest lists with Linux and Nano Server"},
	{"mcr.microsoft.com/dotnet/runtime-deps", PlatformLinux, "runtime-deps is published for Linux only"},
	{"mcr.microsoft.com/dotnet/sdk", PlatformMulti, ".NET images: manifest lists with Linux and Nano Server"},
	{"mcr.microsoft.com/oss/kubernetes/pause", PlatformMulti, "https://kubernetes.io/docs/concepts/windows/intro/#pause-container: Microsoft's pause image, Linux and Windows amd64"},
	{"registry.k8s.io/pause", PlatformMulti, "https://kubernetes.io/docs/concepts/windows/intro/#pause-container: the pause image is multi-architecture including Windows"},
	{"k8s.gcr.io/pause", PlatformMulti, "https://kubernetes.io/docs/concepts/windows/intro/#pause-container: the pause image is multi-architecture including Windows"},
	{"registry.k8s.io/e2e-test-images/agnhost", PlatformMulti, "Kubernetes e2e images are built for Linux and Windows"},
	{"registry.k8s.io/e2e-test-images/busybox", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/busybox/BASEIMAGE lists windows/amd64 1809, ltsc2022, ltsc2025"},
	{"registry.k8s.io/e2e-test-images/nginx", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/nginx/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/kitten", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/kitten/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/nautilus", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/nautilus/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/nonroot", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/nonroot/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/resource-consumer", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/resource-consumer/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/sample-apiserver", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/sample-apiserver/BASEIMAGE lists windows/amd64"},
	{"registry.k8s.io/e2e-test-images/glibc-dns-testing", PlatformMulti, "k8s.io/kubernetes v1.36.3 test/images/glibc-dns-testing/BASEIMAGE lists windows/amd64"},
	{"quay.io/signalfx/splunk-otel-collector", PlatformMulti, "signalfx/splunk-otel-collector#4910: release manifests list the Linux images and the Windows 2019 and 2022 images"},
	{"quay.io/signalfx/splunk-otel-collector-windows", PlatformWindows, "Splunk's Windows-only collector repository (signalfx/splunk-otel-collector-chart#348)"},
	{"registry.k8s.io/e2e-test-images/pause", PlatformMulti, "https://kubernetes.io/docs/concepts/windows/intro/#pause-container: the pause image is multi-architecture including Windows"},
	{"registry.k8s.io/sig-storage/csi-node-driver-registrar", PlatformMulti, "CSI sidecars are published for Linux and Windows"},
	{"registry.k8s.io/sig-storage/livenessprobe", PlatformMulti, "CSI sidecars are published for Linux and Windows"},
	{"mcr.microsoft.com/oss/kubernetes-csi/", PlatformMulti, "Azure CSI driver images are published for Linux and Windows"},
	{"mcr.microsoft.com/oss/v2/kubernetes-csi/", PlatformMulti, "Azure CSI driver images are published for Linux and Windows"},
	{"registry.k8s.io/csi-secrets-store/driver", PlatformMulti, "Secrets Store CSI driver is published for Linux and Windows"},
	{"mcr.microsoft.com/oss/azure/secrets-store/provider-azure", PlatformMulti, "Azure Key Vault provider is published for Linux and Windows"},
	{"mcr.microsoft.com/oss/v2/azure/secrets-store/provider-azure", PlatformMulti, "Azure Key Vault provider is published for Linux and Windows (Azure/secrets-store-csi-driver-provider-azure runs the same tag in its Linux and Windows installers)"},
	{"ghcr.io/prometheus-community/windows-exporter", PlatformWindows, "windows_exporter runs on Windows only (https://kubernetes.io/docs/concepts/windows/intro/#pause-container)"},
	{"docker.io/microsoft/windowsservercore", PlatformWindows, "Microsoft's retired Docker Hub base image, moved to mcr.microsoft.com/windows/servercore (https://kubernetes.io/docs/concepts/windows/intro/#pause-container examples use it)"},
	{"docker.io/microsoft/nanoserver", PlatformWindows, "Microsoft's retired Docker Hub base image, moved to mcr.microsoft.com/windows/nanoserver"},
	{"docker.io/microsoft/iis", PlatformWindows, "Microsoft's retired Docker Hub IIS image, moved to mcr.microsoft.com/windows/servercore/iis"},
	{"docker.io/microsoft/dotnet-framework", PlatformWindows, ".NET Framework images exist only for Windows; moved to mcr.microsoft.com/dotnet/framework"},
	{"docker.io/microsoft/aspnet", PlatformWindows, "ASP.NET (Framework) images exist only for Windows; moved to mcr.microsoft.com/dotnet/framework/aspnet"},
	{"docker.io/sigwindowstools/", PlatformWindows, "SIG Windows tools images (kube-proxy, flannel for Windows)"},
	{"docker.io/sigwindowstools/hyperv-runtimeclass-mutating-webhook", PlatformLinux, "a kubebuilder webhook (/manager) that kubernetes-sigs/windows-testing helpers/hyper-v-mutating-webhook deploys pinned to Linux nodes"},
	{"docker.io/calico/node-windows", PlatformWindows, "Calico for Windows"},
	{"docker.io/calico/cni-windows", PlatformWindows, "Calico for Windows"},
	{"docker.io/library/alpine", PlatformLinux, "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: Alpine Linux"},
	{"docker.io/library/busybox", PlatformLinux, "BusyBox images are Linux only"},
	{"docker.io/library/ubuntu", PlatformLinux, "Linux distribution image"},
	{"docker.io/library/debian", PlatformLinux, "Linux distribution image"},
	{"docker.io/library/centos", PlatformLinux, "Linux distribution image"},
	{"docker.io/library/fedora", PlatformLinux, "Linux distribution image"},
	{"docker.io/library/nginx", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host runs nginx on Linux nodes; no Windows image is published"},
	{"docker.io/library/redis", PlatformLinux, "no Windows image is published"},
	{"docker.io/library/postgres", PlatformLinux, "no Windows image is published"},
	{"docker.io/library/mysql", PlatformLinux, "no Windows image is published"},
	{"docker.io/library/memcached", PlatformLinux, "no Windows image is published"},
	{"docker.io/library/httpd", PlatformLinux, "no Windows image is published"},
	{"docker.io/prom/node-exporter", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host: node-exporter works on Linux only"},
	{"quay.io/prometheus/node-exporter", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host: node-exporter works on Linux only"},
	{"docker.io/fluent/fluentd", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host: Fluentd DaemonSets work on Linux only; Windows tags say so"},
	{"docker.io/fluent/fluent-bit", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host: Fluent Bit on Windows is a separate build; its Windows images say windows in the tag"},
	{"cr.fluentbit.io/fluent/fluent-bit", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host: Fluent Bit on Windows is a separate build; its Windows images say windows in the tag"},
	{"quay.io/calico/node", PlatformLinux, "calico/node is Linux; Windows uses calico/node-windows"},
	{"docker.io/calico/node", PlatformLinux, "calico/node is Linux; Windows uses calico/node-windows"},
	{"docker.io/flannel/flannel", PlatformLinux, "flannel's Linux image; Windows uses sigwindowstools/flannel"},
	{"ghcr.io/flannel-io/flannel", PlatformLinux, "flannel's Linux images (flannel, flannel-cni-plugin); Windows uses sigwindowstools/flannel (https://github.com/flannel-io/flannel/blob/master/kube-flannel.yml pins them to linux)"},
	{"quay.io/coreos/flannel", PlatformLinux, "flannel's former Linux image; Windows uses sigwindowstools/flannel"},
	{"registry.k8s.io/kube-proxy", PlatformLinux, "the kube-proxy image is Linux; Windows uses HostProcess images"},
	{"registry.k8s.io/ingress-nginx/", PlatformLinux, "ingress-nginx is Linux only"},
	{"registry.k8s.io/metrics-server/", PlatformLinux, "metrics-server images are Linux only"},
	{"registry.k8s.io/coredns/", PlatformLinux, "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod: CoreDNS runs on Linux nodes"},
}

var (
	fullBuildRE = regexp.MustCompile(`(?:^|[^0-9])10\.0\.(\d{5})(?:[^0-9]|$)`)
	tagWordRE   = regexp.MustCompile(`[a-z0-9]+`)
)

// ParseImage classifies an image reference.
func (m Model) ParseImage(ref string) Image {
	if v, ok := imageCache.Load(ref); ok {
		return v.(Image)
	}
	img := m.parseImage(ref)
	if imageCacheSize.Add(1) <= maxCachedImages {
		imageCache.Store(ref, img)
	}
	return img
}

// Image classification does not depend on the Kubernetes version, and a
// manifest set names few distinct images many times, so results are kept
// (up to maxCachedImages references).
var (
	imageCache     sync.Map // string -> Image
	imageCacheSize atomic.Int64
)

const maxCachedImages = 1 << 16

func (m Model) parseImage(ref string) Image {
	img := Image{Ref: ref}
	img.Repo, img.Tag = splitRef(ref)
	lower := strings.ToLower(img.Tag)
	winTag := strings.Contains(lower, "windows") || strings.Contains(lower, "nanoserver") || strings.Contains(lower, "servercore")
	best := 0
	for _, k := range imageTable {
		if strings.HasPrefix(img.Repo, k.Prefix) && len(k.Prefix) > best {
			best, img.Platform, img.Source = len(k.Prefix), k.Platform, k.Source
		}
	}
	if best == 0 && strings.Contains(lastSegment(img.Repo), "windows") {
		img.Platform, img.Source = PlatformWindows, SourceRepositoryWindows
	}
	b := tagBuild(lower, winTag || img.Platform == PlatformWindows)
	if b == nil && best == 0 {
		b = thirdPartyBuild(lower)
		img.BuildInferred = b != nil
	}
	if b != nil {
		img.Build = b
		if img.Platform != PlatformWindows {
			img.Platform, img.Source = PlatformWindows, SourceTagBuild+b.Build
		}
	} else if winTag && img.Platform != PlatformWindows {
		img.Platform, img.Source = PlatformWindows, SourceTagWindows
	} else if img.Platform == PlatformMulti && linuxVariant(lower) {
		img.Platform, img.Source = PlatformLinux, SourceTagLinux
	}
	return img
}

// linuxVariantWords are tag words that select a Linux-only variant of a
// multi-platform repository: dotnet/aspnet:8.0-alpine and
// powershell:lts-debian-12 have no Windows image, dotnet/aspnet:8.0 does.
// They are read only for repositories known to be multi-platform, since
// some Windows test images reuse Linux tag names (nginx:1.15-alpine).
// Source: the tag lists of mcr.microsoft.com/dotnet/* and
// mcr.microsoft.com/powershell (Linux variants by distribution, Windows
// variants by nanoserver/windowsservercore and build).
var linuxVariantWords = map[string]bool{
	"alpine": true, "debian": true, "bullseye": true, "bookworm": true, "trixie": true, "buster": true,
	"ubuntu": true, "focal": true, "jammy": true, "noble": true, "chiseled": true, "distroless": true,
	"mariner": true, "cbl": true, "azurelinux": true, "linux": true,
}

func linuxVariant(tag string) bool {
	for _, w := range tagWordRE.FindAllString(tag, -1) {
		if linuxVariantWords[strings.TrimRight(w, "0123456789")] {
			return true
		}
	}
	return false
}

// tagBuild finds the Windows build a tag implies. Bare SAC numbers ("1809")
// count only when the image is otherwise known to be Windows, so a Linux
// "1903" version tag is not misread.
func tagBuild(tag string, windows bool) *Build {
	if m := fullBuildRE.FindStringSubmatch(tag); m != nil {
		for i := range builds {
			if builds[i].Build == "10.0."+m[1] {
				return &builds[i]
			}
		}
	}
	for _, w := range tagWordRE.FindAllString(tag, -1) {
		for i := range builds {
			for _, t := range builds[i].Tags {
				if w == t || w == "windowsservercore"+t || w == "nanoserver"+t {
					if strings.HasPrefix(t, "ltsc") || windows {
						return &builds[i]
					}
				}
			}
		}
	}
	return nil
}

// buildByTag is the build one of whose tags is t.
func buildByTag(t string) *Build {
	for i := range builds {
		for _, bt := range builds[i].Tags {
			if bt == t {
				return &builds[i]
			}
		}
	}
	return nil
}

// splitRef normalises a reference the way container runtimes do: a bare
// name is on Docker Hub under library/.
func splitRef(ref string) (repo, tag string) {
	r := strings.TrimSpace(ref)
	if i := strings.Index(r, "@"); i >= 0 {
		r = r[:i]
	}
	if i := strings.LastIndex(r, ":"); i > strings.LastIndex(r, "/") {
		r, tag = r[:i], r[i+1:]
	}
	first, rest, found := strings.Cut(r, "/")
	switch {
	case !found:
		r = "docker.io/library/" + r
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		r = "docker.io/" + r
	case first == "index.docker.io":
		r = "docker.io/" + rest
	}
	return strings.ToLower(r), tag
}

// Repository is ref's normalised repository, without tag or digest, as
// Image.Repo holds it.
func Repository(ref string) string {
	repo, _ := splitRef(ref)
	return repo
}

func lastSegment(repo string) string {
	return repo[strings.LastIndex(repo, "/")+1:]
}

// LinuxShell reports whether a container command starts a Linux shell.
func (Model) LinuxShell(cmd string) bool {
	switch strings.TrimSuffix(cmd, ".exe") {
	case "/bin/sh", "/bin/bash", "sh", "bash", "/bin/ash", "ash", "/usr/bin/env", "/bin/zsh", "/usr/bin/bash", "/usr/bin/sh":
		return !strings.HasSuffix(cmd, ".exe")
	}
	return false
}

// LinuxPath reports whether p is a Linux absolute path (and not a Windows
// one such as C:\data, C:/data or \\.\pipe\name).
func (Model) LinuxPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//")
}

// HyperVHandler reports whether a RuntimeClass handler selects Hyper-V
// isolation in containerd.
func (Model) HyperVHandler(handler string) bool {
	return strings.Contains(strings.ToLower(handler), "hypervisor")
}

// tagExceptions are repositories that do not publish a build's first tag.
var tagExceptions = []struct {
	Prefix, Build, Tag, Source string
}{
	{"mcr.microsoft.com/windows/nanoserver", "10.0.17763", "1809", "Nano Server has no ltsc2019 tag; Windows Server 2019's is 1809 (https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility: nanoserver:1809)"},
}

// Retag returns ref with the Windows build its tag names replaced by b's
// tag ("nanoserver:1903" becomes "nanoserver:ltsc2022"), at the
// repository's current address. It fails when the tag names no build by a
// tag word (a full 10.0.x version, say) or the reference is pinned by
// digest.
func (m Model) Retag(ref string, b Build) (string, bool) {
	ref = strings.TrimSpace(ref)
	img := m.ParseImage(ref)
	if img.Build == nil || img.Tag == "" || strings.Contains(ref, "@") || len(b.Tags) == 0 {
		return "", false
	}
	repo := ref[:len(ref)-len(img.Tag)-1]
	for _, mv := range movedRepos {
		if img.Repo == mv.From {
			repo = mv.To
		}
	}
	tag := b.Tags[0]
	for _, e := range tagExceptions {
		if strings.HasPrefix(strings.ToLower(repo), e.Prefix) && e.Build == b.Build {
			tag = e.Tag
		}
	}
	lower := strings.ToLower(img.Tag)
	for _, loc := range tagWordRE.FindAllStringIndex(lower, -1) {
		w := lower[loc[0]:loc[1]]
		for _, t := range img.Build.Tags {
			for _, prefix := range []string{"", "windowsservercore", "nanoserver"} {
				if w == prefix+t {
					return repo + ":" + img.Tag[:loc[0]+len(prefix)] + tag + img.Tag[loc[1]:], true
				}
			}
		}
	}
	return "", false
}

// UnpublishedTag reports a tag the repository never published because it
// tags that build another way (nanoserver:ltsc2019 does not exist; Nano
// Server for Windows Server 2019 is nanoserver:1809). fixed is ref with
// the published tag.
func (m Model) UnpublishedTag(ref string) (fixed, source string, ok bool) {
	img := m.ParseImage(ref)
	if img.Build == nil || img.Tag == "" || len(img.Build.Tags) == 0 || strings.Contains(ref, "@") {
		return "", "", false
	}
	first := img.Build.Tags[0]
	for _, e := range tagExceptions {
		if !strings.HasPrefix(strings.ToLower(img.Repo), e.Prefix) || e.Build != img.Build.Build || e.Tag == first {
			continue
		}
		tag := strings.ToLower(img.Tag)
		i := strings.Index(tag, first)
		if i < 0 {
			continue
		}
		fixedTag := img.Tag[:i] + e.Tag + img.Tag[i+len(first):]
		return ref[:len(ref)-len(img.Tag)] + fixedTag, e.Source, true
	}
	return "", "", false
}
