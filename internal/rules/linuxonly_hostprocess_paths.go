package rules

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/winsupport"
)

// HostProcessRootPathMsg is hostprocess-root-relative-command's message:
// where (svcname's words), then the executable. The quotes are literal so
// that the exported policy, which cannot escape as %q does, says the same.
const HostProcessRootPathMsg = "%s runs \"%s\", a path from the drive root: a HostProcess container's image is not at C:\\ but under %%CONTAINER_SANDBOX_MOUNT_POINT%%, so Windows looks for the file on the node's own disk and the command fails"

// RootRelativeRE matches a root-relative path: one slash or backslash
// and no drive letter (a UNC path starts with two).
const RootRelativeRE = `^[/\\][^/\\]`

var rootRelative = regexp.MustCompile(RootRelativeRE)

// HostProcessRootRelativeCommand: a HostProcess container runs an
// executable by a path from the drive root, as a Windows Server container
// (whose image is C:\) or a Linux one would.
var HostProcessRootRelativeCommand = &rule.Rule{
	ID:       "hostprocess-root-relative-command",
	Title:    "HostProcess container runs an executable by a path from the drive root",
	Severity: rule.Warning,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports, in a Windows HostProcess workload, the executable (the first item) of a container's command, of an exec probe or of an exec lifecycle hook that is a path from the drive root without a drive letter (/app.exe, \\tools\\app.exe). A container command that is a Linux shell is windows-linux-shell's; args are not checked.",
		Why:  "In a Windows Server container the image is the container's C:\\, so /app.exe is the image's file, and Linux images put their binaries at / too. A HostProcess container has no filesystem of its own: it sees the node's disk, and its image is mounted under the sandbox mount point (C:\\hpc with containerd 1.7 and later, a folder of its own before), which the runtime adds to PATH and sets as the working directory. A path from the drive root therefore names a file on the node's own C:\\, where the image's executable is not: the container does not start, or the probe or hook fails (a preStop hook that fails is only an event, so the shutdown work it was for is silently skipped).",
		Fix:  "Name the executable without a leading slash (app.exe, found through PATH and the working directory) or under the mount point: $env:CONTAINER_SANDBOX_MOUNT_POINT\\app.exe in PowerShell, %CONTAINER_SANDBOX_MOUNT_POINT%\\app.exe otherwise.",
		Sources: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/#volume-mounts (Volume mounts: the CONTAINER_SANDBOX_MOUNT_POINT environment variable gives the absolute host path to the container volume, which holds the image's files)",
			"microsoft/hcsshim v0.13.0-rc.3 internal/jobcontainers/jobcontainer.go (\"The containers rootfs location (C:\\ in a typical Windows Server Container) can now be the same path in every container, and the default location is C:\\hpc\"; the rootfs location is added to PATH and is the default working directory)",
			"microsoft/hcsshim v0.13.0-rc.3 internal/jobcontainers/path.go getApplicationName (the command line is resolved with SearchPathW over the working directory, PATH and the system directories)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) || !p.Target.HostProcess {
			return
		}
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			for _, e := range hostProcessExecutables(c, cp) {
				if !rootRelative.MatchString(e.value) || (e.command && p.Model.LinuxShell(e.value)) {
					continue
				}
				p.Report(rule.Finding{Path: rule.Path(e.path),
					Message: fmt.Sprintf(HostProcessRootPathMsg, e.where, e.value),
					Hint:    "drop the leading slash (the image's root is on PATH) or start the path with the sandbox mount point variable"})
			}
		})
	},
}

// executable is the first item of one of a container's command lists.
type executable struct {
	path    *field.Path
	where   string
	value   string
	command bool // the container's own command, not a probe's or hook's
}

// hostProcessExecutables lists the executables of the container's
// command, exec probes and exec hooks, in svcname.Visit's order.
func hostProcessExecutables(c *corev1.Container, cp *field.Path) []executable {
	in := fmt.Sprintf(svcname.WhereContainer, c.Name)
	var out []executable
	if len(c.Command) > 0 {
		out = append(out, executable{cp.Child("command").Index(0), fmt.Sprintf(svcname.WhereCommand, in), c.Command[0], true})
	}
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
		if pr.probe != nil && pr.probe.Exec != nil && len(pr.probe.Exec.Command) > 0 {
			out = append(out, executable{cp.Child(pr.name, "exec", "command").Index(0), fmt.Sprintf(svcname.WhereProbe, pr.name, in), pr.probe.Exec.Command[0], false})
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []struct {
			name    string
			handler *corev1.LifecycleHandler
		}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
			if h.handler != nil && h.handler.Exec != nil && len(h.handler.Exec.Command) > 0 {
				out = append(out, executable{cp.Child("lifecycle", h.name, "exec", "command").Index(0), fmt.Sprintf(svcname.WhereHook, h.name, in), h.handler.Exec.Command[0], false})
			}
		}
	}
	return out
}
