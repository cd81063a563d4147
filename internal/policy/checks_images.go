package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

var imageChecks = map[*rule.Rule]exporter{
	rules.WindowsBuildUnsupported: buildUnsupportedChecks,
	rules.SACImageEOL:             sacImageEOLChecks,
	rules.ImageBuildMismatch:      imageBuildMismatchChecks,
	// A resources rule, here for the image size table it reads.
	rules.WindowsMissingStartupProbe: startupProbeChecks,
	rules.WindowsImageOnLinux: func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'linux' && variables.imgPlatforms.exists(p, p == 'windows')`,
			detail: `variables.containers.transformList(i, c, variables.imgPlatforms[i] == 'windows', 'image "' + c.image + '" is Windows-only (' + variables.imgSource[i] + ') but the workload is bound to Linux (from ' + variables.by + '); on a Linux node the pull fails: ` + winsupport.NoPlatformMatch + `').join('; ')`}}
	},
	rules.LinuxImageOnWindows: func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'windows' && variables.imgPlatforms.exists(p, p == 'linux')`,
			detail: `variables.containers.transformList(i, c, variables.imgPlatforms[i] == 'linux', 'image "' + c.image + '" is Linux-only (' + variables.imgSource[i] + ') but the workload is bound to Windows (from ' + variables.by + '); on a Windows node the pull fails: ` + winsupport.NoPlatformMatch + `').join('; ')`}}
	},
}
