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
	rules.WindowsImageOnLinux:        otherOSImageChecks("linux", "Linux", "windows", "Windows"),
	rules.LinuxImageOnWindows:        otherOSImageChecks("windows", "Windows", "linux", "Linux"),
}

// otherOSImageChecks exports windows-image-on-linux and
// linux-image-on-windows: in a workload bound to one OS (bound, as
// variables.os has it, and as messages name it), the images made only for
// the other.
func otherOSImageChecks(bound, boundName, image, imageName string) exporter {
	return func(winsupport.Model) []check {
		return []check{{expr: `variables.os == '` + bound + `' && variables.imgPlatforms.exists(p, p == '` + image + `')`,
			detail: `variables.containers.transformList(i, c, variables.imgPlatforms[i] == '` + image + `', 'image "' + c.image + '" is ` + imageName + `-only (' + variables.imgSource[i] + ') but the workload is bound to ` + boundName + ` (from ' + variables.by + '); on a ` + boundName + ` node the pull fails: ` + winsupport.NoPlatformMatch + `').join('; ')`}}
	}
}
