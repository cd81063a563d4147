package winsupport

import (
	"slices"
	"strconv"
	"strings"
)

// BaseImage is a family of Windows base images and what its size means for
// pulling and starting a container.
type BaseImage struct {
	Name string // "Server Core"
	// SizeMB is the approximate uncompressed size, 0 when no source gives
	// one.
	SizeMB int
	// Large images take long to pull, extract and start: a container on
	// them needs a startup probe before its liveness probe bites.
	Large  bool
	Source string
}

// Size renders the approximate size for messages: "~4.7 GB", or "" when
// unknown.
func (b BaseImage) Size() string {
	switch {
	case b.SizeMB == 0:
		return ""
	case b.SizeMB < 1000:
		return "~" + strconv.Itoa(b.SizeMB) + " MB"
	}
	return "~" + strings.TrimSuffix(strconv.FormatFloat(float64(b.SizeMB)/1000, 'f', 1, 64), ".0") + " GB"
}

var (
	nanoServer = BaseImage{Name: "Nano Server", SizeMB: 280, Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: Nano Server is approximately 280 MB"}
	serverCore = BaseImage{Name: "Server Core", SizeMB: 4700, Large: true, Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: Server Core is approximately 4.7 GB"}
	fullImage  = BaseImage{Name: "Windows (full)", SizeMB: 9000, Large: true, Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: the full Windows image is approximately 9 GB"}
	serverImg  = BaseImage{Name: "Windows Server", Large: true, Source: "Microsoft's Windows Server base image (ltsc2022 and later) adds to Server Core the components the full image has; https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images sizes Server Core at ~4.7 GB and the full image at ~9 GB"}
	iisImage   = BaseImage{Name: "IIS on Server Core", SizeMB: 4700, Large: true, Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: use servercore only when Win32 APIs or IIS are required; the IIS image is built on Server Core"}
	netFxImage = BaseImage{Name: ".NET Framework on Server Core", SizeMB: 4700, Large: true, Source: "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: .NET Framework images exist only for Windows; they are built on Server Core (https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images: ~4.7 GB)"}
)

// baseImageTable lists the repositories whose base image is known. The
// longest matching repository wins.
var baseImageTable = []BaseImageRepo{
	{Repo: "mcr.microsoft.com/windows/nanoserver", Base: nanoServer},
	{Repo: "mcr.microsoft.com/windows/servercore", Base: serverCore},
	{Repo: "mcr.microsoft.com/windows/servercore/iis", Base: iisImage},
	{Repo: "mcr.microsoft.com/windows/server", Base: serverImg},
	{Repo: "mcr.microsoft.com/windows", Exact: true, Base: fullImage},
	{Repo: "mcr.microsoft.com/windows/insider", Exact: true, Base: fullImage},
	{Repo: "mcr.microsoft.com/dotnet/framework", Base: netFxImage},
	// The Docker Hub names Microsoft published the same images under
	// before moving them to mcr.microsoft.com.
	{Repo: "docker.io/microsoft/nanoserver", Base: nanoServer},
	{Repo: "docker.io/microsoft/windowsservercore", Base: serverCore},
	{Repo: "docker.io/microsoft/iis", Base: iisImage},
	{Repo: "docker.io/microsoft/aspnet", Base: netFxImage},
	{Repo: "docker.io/microsoft/dotnet-framework", Base: netFxImage},
}

// baseTagWords name a base image in the tags of multi-variant images
// (mcr.microsoft.com/powershell:lts-windowsservercore-ltsc2022,
// mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022).
var baseTagWords = []BaseTagWord{
	{"nanoserver", nanoServer},
	{"servercore", serverCore}, // also matches windowsservercore
}

// ImageBase returns the Windows base image family an image reference is
// built on, from its repository or, failing that, its tag. It reports
// false when the base is unknown, as it is for most custom images.
func (m Model) ImageBase(ref string) (BaseImage, bool) {
	img := m.ParseImage(ref)
	best := -1
	var base BaseImage
	for _, r := range baseImageTable {
		if len(r.Repo) <= best {
			continue
		}
		if img.Repo == r.Repo || (!r.Exact && strings.HasPrefix(img.Repo, r.Repo+"/")) {
			best, base = len(r.Repo), r.Base
		}
	}
	if best >= 0 {
		return base, true
	}
	if img.Platform != PlatformWindows {
		return BaseImage{}, false
	}
	tag := strings.ToLower(img.Tag)
	for _, w := range baseTagWords {
		if strings.Contains(tag, w.Word) {
			return w.Base, true
		}
	}
	return BaseImage{}, false
}

// LargeImage returns the base image of ref when it is one of the large
// Windows bases (Server Core, Server, the full image, and what is built on
// them: .NET Framework, IIS).
func (m Model) LargeImage(ref string) (BaseImage, bool) {
	b, ok := m.ImageBase(ref)
	return b, ok && b.Large
}

// BaseImages lists the known base image families, for documentation.
func (Model) BaseImages() []BaseImage {
	var out []BaseImage
	seen := map[string]bool{}
	for _, r := range baseImageTable {
		if !seen[r.Base.Name] {
			seen[r.Base.Name] = true
			out = append(out, r.Base)
		}
	}
	return out
}

// BaseImageRepo is a row of the base image table: Repo matches itself
// and, unless Exact, every repository below it.
type BaseImageRepo struct {
	Repo  string
	Exact bool
	Base  BaseImage
}

// BaseImageRepos returns the base image table, which the exported
// admission policies compile into CEL.
func (Model) BaseImageRepos() []BaseImageRepo { return slices.Clone(baseImageTable) }

// BaseTagWord is a word of a Windows image's tag that names its base.
type BaseTagWord struct {
	Word string
	Base BaseImage
}

// BaseTagWords returns the tag words ImageBase reads, in the order it
// tries them.
func (Model) BaseTagWords() []BaseTagWord { return slices.Clone(baseTagWords) }
