package winsupport

import (
	"slices"
	"strings"
)

// linuxSystemRoots are directories of the Linux file system hierarchy that
// only a Linux program looks in: a Windows program has no /etc, /usr or
// /proc, so a container that mounts configuration there, or a hostPath
// that names them, was written for Linux. Directories that are ordinary
// names on Windows too (/tmp, /data, /conf, /k, /var/log/<app>) are not
// evidence of anything and are left out.
var linuxSystemRoots = []struct{ Root, Source string }{
	{"/proc", "Linux procfs; Windows has none (https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod: Linux-only features)"},
	{"/sys", "Linux sysfs; Windows has none"},
	{"/dev", "Linux device nodes; Windows exposes devices through the device plugin API only"},
	{"/boot", "Linux boot files"},
	{"/lib/modules", "Linux kernel modules"},
	{"/usr", "Linux programs and libraries (FHS)"},
	{"/etc", "Linux configuration (FHS); /etc/cni/net.d is a Windows node path too"},
	{"/opt", "Linux add-on packages (FHS); /opt/cni/bin is a Windows node path too"},
	{"/var/run/docker.sock", "the Docker Engine socket; Windows uses the named pipe \\\\.\\pipe\\docker_engine"},
	{"/run/containerd", "containerd's Linux socket directory; Windows uses \\\\.\\pipe\\containerd-containerd"},
	{"/var/lib/docker", "Docker Engine's Linux data root"},
}

// LinuxSystemPath reports whether the rooted path p lies in a directory of
// the Linux file system hierarchy that only Linux programs use, and not
// in one of the Linux-style directories Windows nodes really have
// (WindowsNodePath). It returns the root that matched.
func (m Model) LinuxSystemPath(p string) (string, bool) {
	if !m.LinuxPath(p) {
		return "", false
	}
	if _, ok := m.WindowsNodePath(p); ok {
		return "", false
	}
	clean := strings.TrimRight(p, "/")
	for _, r := range linuxSystemRoots {
		if clean == r.Root || strings.HasPrefix(clean, r.Root+"/") {
			return r.Root, true
		}
	}
	return "", false
}

// LinuxSystemRoots lists, in the order LinuxSystemPath tries them, the
// roots it reports (for exporters that restate the check, such as CEL).
func (Model) LinuxSystemRoots() []string {
	out := make([]string, len(linuxSystemRoots))
	for i, r := range linuxSystemRoots {
		out[i] = r.Root
	}
	return out
}

// PauseRepositories lists the repositories PauseImage recognises.
func (Model) PauseRepositories() []string { return slices.Clone(pauseRepos) }

// pauseRepos are the pause image's repositories: a container of that
// image only sleeps, so its resources do not matter.
var pauseRepos = []string{"registry.k8s.io/pause", "k8s.gcr.io/pause", "mcr.microsoft.com/oss/kubernetes/pause", "mcr.microsoft.com/oss/v2/kubernetes/pause", "gcr.io/google-containers/pause"}

// PauseImage reports whether ref is the Kubernetes pause image.
func (Model) PauseImage(ref string) bool {
	repo, _, _ := strings.Cut(ref, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	for _, r := range pauseRepos {
		if repo == r {
			return true
		}
	}
	return false
}

// WindowsTagBuild reads the Windows build an image's tag names as if the
// image were known to be Windows: for a Windows workload, the "1803" of
// app:1.0-1803 is a build, not a version number.
func (Model) WindowsTagBuild(ref string) *Build {
	_, tag := splitRef(ref)
	return tagBuild(strings.ToLower(tag), true)
}
