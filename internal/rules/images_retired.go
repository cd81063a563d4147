package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Messages of the two rules, which the exported policies share.
const (
	RetiredImageMsg   = "image %q is in Microsoft's retired Docker Hub repository, which gets no new tags or security updates; its images moved to %s"
	DeletedRepoMsg    = "image %q is in %s, a repository Microsoft deleted with all its tags when it suspended SQL Server on Windows containers (2021): the pull fails with %q and the pod never starts"
	UnpublishedTagMsg = "image %q does not exist: the repository tags this build %q; the pull fails with manifest unknown"
)

// RetiredWindowsImage: Microsoft's retired Docker Hub repositories.
var RetiredWindowsImage = &rule.Rule{
	ID:       "retired-windows-image",
	Title:    "Image from Microsoft's retired Docker Hub repositories",
	Severity: rule.Warning,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image is in one of Microsoft's retired Docker Hub repositories (microsoft/windowsservercore, microsoft/nanoserver, microsoft/iis, microsoft/aspnet) with a tag that names no Windows build (latest, or none), naming the mcr.microsoft.com repository that replaced it. A tag that names a build (1709, ltsc2016) is left to the build rules (sac-image-eol, image-build-mismatch, windows-build-unsupported).",
		Why:  "Microsoft moved its Windows base images to the Microsoft Container Registry in 2018 and publishes no new tags on Docker Hub: the images there are Windows Server 2016 and Semi-Annual Channel builds without security updates, which no supported Windows node runs with process isolation; the ASP.NET images moved with them (microsoft/aspnet to mcr.microsoft.com/dotnet/framework/aspnet). An untagged reference (microsoft/iis) pulls whatever latest was when the repository was frozen.",
		Fix:  "Use the image's mcr.microsoft.com repository with a tag for your nodes' build, e.g. mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022.",
		Sources: []string{
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images (Container base images): the base images are published to mcr.microsoft.com",
			"hub.docker.com/r/microsoft/windowsservercore, /r/microsoft/nanoserver, /r/microsoft/iis (deprecated; moved to mcr.microsoft.com)",
			"https://github.com/microsoft/aspnet-docker (archived: \"This repository has moved to microsoft/dotnet-framework-docker\", whose README publishes the ASP.NET images as mcr.microsoft.com/dotnet/framework/aspnet)",
		},
	},
	Workload: func(p *rule.Pass) {
		eachImageRef(p, func(ref string, path *field.Path) {
			to, _, ok := p.Model.MovedRepo(ref)
			if !ok || p.Model.ParseImage(ref).Build != nil {
				// A tag that names a build is judged by the build rules
				// (sac-image-eol, image-build-mismatch), with the new
				// address in their fix: one cause, one finding.
				return
			}
			p.Report(rule.Finding{Path: rule.Path(path),
				Message: fmt.Sprintf(RetiredImageMsg, ref, to),
				Hint:    fmt.Sprintf("use %s with a tag for your nodes' Windows build", to)})
		})
	},
}

// WindowsImageRepositoryDeleted: a repository Microsoft deleted.
var WindowsImageRepositoryDeleted = &rule.Rule{
	ID:       "windows-image-repository-deleted",
	Title:    "Image from a Windows repository Microsoft deleted",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports containers whose image is in one of SQL Server's Windows container repositories on Docker Hub (microsoft/mssql-server-windows, microsoft/mssql-server-windows-developer, microsoft/mssql-server-windows-express), with any tag or digest, in a workload of any OS: the repositories no longer exist.",
		Why:  "Microsoft suspended the SQL Server on Windows Containers beta in 2021 and deleted these repositories with all their tags; there is no successor image for Windows. containerd cannot resolve the reference (`" + winsupport.PullAccessDenied + "`), the pod stays in ErrImagePull / ImagePullBackOff, and samples written before 2021 (eShopModernizing's SQL Server Deployments, for one) still name them.",
		Fix:  "Run SQL Server from mcr.microsoft.com/mssql/server in a Linux pod (pinned to kubernetes.io/os: linux) and reach it through a Service from the Windows workloads, or build your own Windows image from the sample Dockerfiles in microsoft/mssql-docker and push it to a registry you control.",
		Sources: []string{
			"https://techcommunity.microsoft.com/blog/sqlserver/update--beta-program-for-sql-server-on-windows-container-is-suspended-/2516639 (the repositories and their tags are deleted)",
			"https://github.com/microsoft/mssql-docker/issues/709 (microsoft/mssql-server-windows, -developer and -express no longer exist)",
			"containerd/containerd v2.1.4 core/remotes/docker/resolver.go (pull access denied, repository does not exist or may require authorization)",
		},
	},
	Workload: func(p *rule.Pass) {
		eachImageRef(p, func(ref string, path *field.Path) {
			repo, ok := p.Model.DeletedRepo(ref)
			if !ok {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(path),
				Message: fmt.Sprintf(DeletedRepoMsg, ref, strings.TrimPrefix(repo, "docker.io/"), winsupport.PullAccessDenied),
				Hint:    "run SQL Server from mcr.microsoft.com/mssql/server in a Linux pod behind a Service, or build your own Windows image and push it to a registry you control"})
		})
	},
}

// WindowsImageTagUnpublished: a tag the repository never published.
var WindowsImageTagUnpublished = &rule.Rule{
	ID:       "windows-image-tag-unpublished",
	Title:    "Windows image tag that the repository does not publish",
	Severity: rule.Error,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports Windows base image references whose tag names a build in a form the repository never published: mcr.microsoft.com/windows/nanoserver:ltsc2019 (Nano Server for Windows Server 2019 is tagged 1809). HostProcess containers are reported too: the kubelet pulls their image like any other.",
		Why:  "The registry has no such manifest: the pull fails with `manifest unknown` and the pod stays in ErrImagePull / ImagePullBackOff. The mistake is natural, since Server Core is tagged ltsc2019.",
		Fix:  "Use the published tag (winkube fix does): mcr.microsoft.com/windows/nanoserver:1809.",
		Sources: []string{
			"mcr.microsoft.com/v2/windows/nanoserver/tags/list (1809, ltsc2022, ltsc2025; no ltsc2019)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (Nano Server 2019 is 1809)",
		},
	},
	Workload: func(p *rule.Pass) {
		eachImageRef(p, func(ref string, image *field.Path) {
			fixed, _, ok := p.Model.UnpublishedTag(ref)
			if !ok {
				return
			}
			path := rule.Path(image)
			p.Report(rule.Finding{Path: path,
				Message: fmt.Sprintf(UnpublishedTagMsg, ref, fixed),
				Fix:     &rule.Fix{Title: "use " + fixed, Safe: true, Edits: []rule.Edit{{Op: rule.Set, Path: path, Value: fixed}}}})
		})
	},
}
