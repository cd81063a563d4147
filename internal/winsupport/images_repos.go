package winsupport

import (
	"slices"
	"strings"
)

// movedRepos are Docker Hub repositories Microsoft retired when it moved
// its Windows images to mcr.microsoft.com (2018); new tags exist only at
// the new address.
var movedRepos = []struct {
	From, To, Source string
}{
	{"docker.io/microsoft/windowsservercore", "mcr.microsoft.com/windows/servercore", "Docker Hub microsoft/windowsservercore: deprecated, moved to mcr.microsoft.com/windows/servercore"},
	{"docker.io/microsoft/nanoserver", "mcr.microsoft.com/windows/nanoserver", "Docker Hub microsoft/nanoserver: deprecated, moved to mcr.microsoft.com/windows/nanoserver"},
	{"docker.io/microsoft/iis", "mcr.microsoft.com/windows/servercore/iis", "Docker Hub microsoft/iis: moved to mcr.microsoft.com/windows/servercore/iis"},
	{"docker.io/microsoft/aspnet", "mcr.microsoft.com/dotnet/framework/aspnet", "Docker Hub microsoft/aspnet: github.com/microsoft/aspnet-docker moved to microsoft/dotnet-framework-docker, which publishes mcr.microsoft.com/dotnet/framework/aspnet"},
}

// MovedRepo is where the retired Docker Hub repository of ref moved, ok
// false when ref is not in one.
func (m Model) MovedRepo(ref string) (to, source string, ok bool) {
	repo := m.ParseImage(ref).Repo
	for _, mv := range movedRepos {
		if repo == mv.From {
			return mv.To, mv.Source, true
		}
	}
	return "", "", false
}

// deletedRepos are Docker Hub repositories Microsoft deleted with all
// their tags, with no successor: SQL Server's Windows container images,
// deleted when the SQL Server on Windows Containers beta was suspended in
// 2021 (the sources are rules.WindowsImageRepositoryDeleted's). A pull of
// any of their references fails.
var deletedRepos = []string{
	"docker.io/microsoft/mssql-server-windows",
	"docker.io/microsoft/mssql-server-windows-developer",
	"docker.io/microsoft/mssql-server-windows-express",
}

// DeletedRepo is the repository Microsoft deleted (deletedRepos) that
// ref is in, ok false when it is in none.
func (m Model) DeletedRepo(ref string) (repo string, ok bool) {
	r := m.ParseImage(ref).Repo
	for _, d := range deletedRepos {
		if strings.EqualFold(r, d) {
			return d, true
		}
	}
	return "", false
}

// DeletedRepos are the repositories DeletedRepo knows, for the exported
// policies.
func DeletedRepos() []string { return slices.Clone(deletedRepos) }
