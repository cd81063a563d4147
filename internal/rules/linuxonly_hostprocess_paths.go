package rules

import (
	"fmt"
	"regexp"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
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
		// The executable is the first item of the container's command (not
		// of args alone, which the image's entrypoint runs), of an exec
		// probe's or of an exec hook's.
		visitCommands(p.Workload.Spec, p.Workload.SpecPath, func(l commandLine) {
			if l.args || len(l.argv) == 0 {
				return
			}
			exe, where := l.argv[0], l.where
			if l.own {
				where = fmt.Sprintf(svcname.WhereCommand, l.where)
			}
			if !rootRelative.MatchString(exe) || (l.own && p.Model.LinuxShell(exe)) {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(l.path.Index(0)),
				Message: fmt.Sprintf(HostProcessRootPathMsg, where, exe),
				Hint:    "drop the leading slash (the image's root is on PATH) or start the path with the sandbox mount point variable"})
		})
	},
}
