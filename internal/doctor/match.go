package doctor

import (
	"regexp"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// Pattern is one way a runtime or kubelet phrases a failure.
type Pattern = rule.Pattern

// anyMatch returns the first pattern msg matches.
func anyMatch(msg string, ps []Pattern) (Pattern, bool) {
	lower := strings.ToLower(msg)
	for _, p := range ps {
		if strings.Contains(lower, strings.ToLower(p.Text)) {
			return p, true
		}
	}
	return Pattern{}, false
}

// wrappers are the layers around a runtime's own message, outermost
// first, as they arrive in a kubelet event.
var wrappers = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^failed to create pod sandbox:\s*`),
	regexp.MustCompile(`(?i)^error:\s*`),
	regexp.MustCompile(`(?i)^failed to pull image "[^"]*":\s*`),
	regexp.MustCompile(`(?i)^rpc error: code = \w+ desc =\s*`),
	regexp.MustCompile(`(?i)^failed to (create|start) containerd (task|container):\s*`),
	regexp.MustCompile(`(?i)^failed to create shim task:\s*`),
	regexp.MustCompile(`(?i)^failed to pull and unpack image "[^"]*":\s*`),
	regexp.MustCompile(`(?i)^failed to start sandbox container for pod "[^"]*":\s*`),
	regexp.MustCompile(`(?i)^error response from daemon:\s*`),
	regexp.MustCompile(`(?i)^container \S+ encountered an error during \S+:\s*`),
	regexp.MustCompile(`(?i)^(hcs|hcsshim)::[A-Za-z:]+ [^\s:]+:\s*`),
	regexp.MustCompile(`(?i)^failure in a windows system call:\s*`),
}

var trailers = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\s*\(0x[0-9a-f]+\)`),
	regexp.MustCompile(`(?i):\s*unknown$`),
	regexp.MustCompile(`(?i)\s*\(extra info:.*$`),
}

// Core strips the wrappers from a runtime message, leaving what the
// innermost component said: "rpc error: code = Unknown desc = failed to
// create containerd task: failed to create shim task: hcs::CreateComputeSystem
// abc: The container operating system does not match the host operating
// system.: unknown" becomes "The container operating system does not
// match the host operating system.".
func Core(msg string) string {
	s := strings.TrimSpace(msg)
	for changed := true; changed; {
		changed = false
		for _, w := range wrappers {
			if loc := w.FindStringIndex(s); loc != nil && loc[1] > 0 {
				s, changed = strings.TrimSpace(s[loc[1]:]), true
			}
		}
	}
	for _, t := range trailers {
		s = t.ReplaceAllString(s, "")
	}
	return strings.TrimSpace(s)
}

var cniPlugin = regexp.MustCompile(`(?i)plugin type="([^"]+)"`)

// CNIPlugin names the CNI plugin a sandbox network error quotes, "" when
// it names none.
func CNIPlugin(msg string) string {
	if m := cniPlugin.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	lower := strings.ToLower(msg)
	for _, p := range []string{"calico", "flannel", "antrea", "azure-vnet", "win-bridge", "win-overlay", "sdnbridge", "sdnoverlay", "cilium"} {
		if strings.Contains(lower, p) {
			return p
		}
	}
	return ""
}
