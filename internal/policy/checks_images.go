package policy

import (
	"github.com/winkube/winkube/internal/winsupport"
)

var imageChecks = map[string]exporter{
	"windows-build-unsupported": buildUnsupportedChecks,
	"sac-image-eol":             sacImageEOLChecks,
	"windows-image-on-linux": func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'linux' && variables.imgPlatforms.exists(p, p == 'windows')`,
			detail: `'image ' + variables.imgRefs.transformList(i, r, variables.imgPlatforms[i] == 'windows', '"' + variables.containers[i].image + '"').join(', ') + ' is Windows-only but the workload is bound to Linux (from ' + variables.by + '); on a Linux node the pull fails'`}}
	},
	"linux-image-on-windows": func(winsupport.Model) []check {
		return []check{{expr: `variables.os == 'windows' && variables.imgPlatforms.exists(p, p == 'linux')`,
			detail: `'image ' + variables.imgRefs.transformList(i, r, variables.imgPlatforms[i] == 'linux', '"' + variables.containers[i].image + '"').join(', ') + ' is Linux-only but the workload is bound to Windows (from ' + variables.by + '); on a Windows node the pull fails'`}}
	},
}
