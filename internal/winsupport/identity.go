package winsupport

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// WindowsRootUserName is the user the kubelet regards as root on Windows,
// compared without regard to case (k8s.io/kubernetes v1.36.3
// pkg/kubelet/kuberuntime/security_context_windows.go windowsRootUserName).
const WindowsRootUserName = "ContainerAdministrator"

// The kubelet's two runAsNonRoot refusals on Windows, word for word
// (k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/security_context_windows.go
// verifyRunAsNonRoot): the first when the effective runAsUserName is
// ContainerAdministrator, the second when runAsUserName is unset and the
// image's configured user is. The kubelet fills in the user, the pod as
// format.Pod prints it (name_namespace(uid)) and the container's name.
const (
	KubeletRunAsUserNameRoot = "container's runAsUserName (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)"
	KubeletImageUserRoot     = "container's runAsUser (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)"
)

// NonRoot is the kubelet's verdict on a Windows container's runAsNonRoot.
type NonRoot int

const (
	// NonRootUnchecked: runAsNonRoot is not true, or the user is ContainerUser or another.
	NonRootUnchecked NonRoot = iota
	// NonRootRefusedName: runAsUserName is ContainerAdministrator; the
	// kubelet refuses the container (KubeletRunAsUserNameRoot).
	NonRootRefusedName
	// NonRootRefusedImage: runAsUserName is unset and the image's user is
	// ContainerAdministrator; the kubelet refuses it (KubeletImageUserRoot).
	NonRootRefusedImage
	// NonRootNotEnforced: runAsUserName and the image's user are both
	// unset; the kubelet's check passes and the container runs as
	// ContainerAdministrator, the Windows default.
	NonRootNotEnforced
	// NonRootUnknown: runAsUserName is unset and the image's user is not known.
	NonRootUnknown
)

// ImageUser is the user an image's config names, when known.
type ImageUser struct {
	Name   string // "" when the config sets none
	Known  bool
	Source string // where it was read: the registry, or the table row's source
}

// RunAsNonRoot is verifyRunAsNonRoot of the Windows kubelet for container
// c of the pod: the effective security context (the container's fields
// over the pod's, as securitycontext.DetermineEffectiveSecurityContext
// merges them), then runAsUserName, then the image's user. user is the
// name the verdict is about.
func RunAsNonRoot(s *corev1.PodSpec, c *corev1.Container, image ImageUser) (v NonRoot, user string) {
	nonRoot, name := effectiveNonRoot(s, c)
	switch {
	case nonRoot == nil || !*nonRoot:
		return NonRootUnchecked, ""
	case name != nil && strings.EqualFold(*name, WindowsRootUserName):
		return NonRootRefusedName, *name
	case name != nil:
		return NonRootUnchecked, *name
	case !image.Known:
		return NonRootUnknown, ""
	case strings.EqualFold(image.Name, WindowsRootUserName):
		return NonRootRefusedImage, image.Name
	case image.Name == "":
		return NonRootNotEnforced, WindowsRootUserName
	}
	return NonRootUnchecked, image.Name
}

// effectiveNonRoot merges runAsNonRoot and windowsOptions.runAsUserName
// of the container over the pod's.
func effectiveNonRoot(s *corev1.PodSpec, c *corev1.Container) (nonRoot *bool, name *string) {
	if psc := s.SecurityContext; psc != nil {
		nonRoot = psc.RunAsNonRoot
		if psc.WindowsOptions != nil {
			name = psc.WindowsOptions.RunAsUserName
		}
	}
	if csc := c.SecurityContext; csc != nil {
		if csc.RunAsNonRoot != nil {
			nonRoot = csc.RunAsNonRoot
		}
		if csc.WindowsOptions != nil && csc.WindowsOptions.RunAsUserName != nil {
			name = csc.WindowsOptions.RunAsUserName
		}
	}
	return nonRoot, name
}

// knownImageUser is a row of the image user table: a repository and the
// user its Windows image configs name.
type knownImageUser struct {
	Repo   string // normalised repository, or a prefix ending in "/"
	User   string
	Source string
}

// imageUsers lists the Config.User of well-known Windows images, read
// with `crane config <image> | jq .config.User` (or `docker image
// inspect --format '{{.Config.User}}'`) on every LTSC tag.
var imageUsers = []knownImageUser{
	{"mcr.microsoft.com/windows/nanoserver", "ContainerUser", "the Nano Server image config sets User ContainerUser (moby/buildkit#4731: \"the default user on nanoserver image is a low-priv ContainerUser\")"},
	{"mcr.microsoft.com/windows/servercore", "", "the Server Core image config sets no User, so its containers run as ContainerAdministrator (kubernetes/kubernetes#112469)"},
	{"mcr.microsoft.com/windows/servercore/iis", "", "built FROM mcr.microsoft.com/windows/servercore without a USER instruction (microsoft/iis-docker Dockerfile)"},
	{"mcr.microsoft.com/windows/server", "", "the Windows Server image config sets no User (ContainerAdministrator, as Server Core)"},
	{"mcr.microsoft.com/windows", "", "the Windows image config sets no User (ContainerAdministrator, as Server Core)"},
	{"mcr.microsoft.com/dotnet/framework/", "", ".NET Framework images are built FROM Server Core without a USER instruction (microsoft/dotnet-framework-docker Dockerfiles)"},
}

// ImageUserRow is a row of the table of well-known Windows images' users:
// a normalised repository (a prefix when it ends in "/") and the user its
// image configs name ("" for none).
type ImageUserRow struct{ Repo, User string }

// ImageUserRows are the table ImageUser reads; the exported policies
// compile it in.
func (Model) ImageUserRows() []ImageUserRow {
	out := make([]ImageUserRow, len(imageUsers))
	for i, r := range imageUsers {
		out[i] = ImageUserRow{r.Repo, r.User}
	}
	return out
}

// ImageUser is the user image's config names, from the table of
// well-known Windows images; Known is false for any other image.
func (m Model) ImageUser(ref string) ImageUser {
	repo := m.ParseImage(ref).Repo
	best := -1
	for i, row := range imageUsers {
		match := repo == row.Repo || strings.HasSuffix(row.Repo, "/") && strings.HasPrefix(repo, row.Repo)
		if match && (best < 0 || len(row.Repo) > len(imageUsers[best].Repo)) {
			best = i
		}
	}
	if best < 0 {
		return ImageUser{}
	}
	return ImageUser{Name: imageUsers[best].User, Known: true, Source: imageUsers[best].Source}
}

// User is the user the Windows entries of a resolved image configure, when
// the registry was asked for it and every Windows entry agrees.
func (r *ResolvedImage) User() ImageUser {
	var u ImageUser
	for _, p := range r.Platforms {
		if p.OS != "windows" {
			continue
		}
		if p.User == nil || u.Known && *p.User != u.Name {
			return ImageUser{}
		}
		u = ImageUser{Name: *p.User, Known: true, Source: "the registry's image config of " + r.Ref}
	}
	return u
}
