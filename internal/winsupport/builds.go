package winsupport

import "strings"

// Channel is a Windows Server servicing channel.
type Channel string

const (
	LTSC Channel = "LTSC"
	SAC  Channel = "SAC"
)

// Build is a Windows Server release and the Kubernetes releases that
// support it as a node OS.
type Build struct {
	Name     string  // "Windows Server 2022"
	Build    string  // node.kubernetes.io/windows-build label value
	Channel  Channel // LTSC or SAC
	EOL      bool    // out of Microsoft support; images no longer patched
	Tags     []string
	Supports Range // Kubernetes releases supporting it as a node OS
	Source   string
}

// builds is the table of Windows Server builds.
var builds = []Build{
	{Name: "Windows Server 2016", Build: "10.0.14393", Channel: LTSC, Tags: []string{"ltsc2016", "1607"}, Supports: Range{Version{5}, Version{13}}, Source: "Kubernetes v1.14 release notes (Windows nodes GA on Windows Server 2019 only; Windows Server 2016, build 14393, ran the alpha and beta of 1.5-1.13); mcr.microsoft.com/windows/servercore:ltsc2016"},
	{Name: "Windows Server, version 1709", Build: "10.0.16299", Channel: SAC, EOL: true, Tags: []string{"1709"}, Supports: Range{Version{0}, Version{13}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (SAC releases), Microsoft Windows Server release information"},
	{Name: "Windows Server, version 1803", Build: "10.0.17134", Channel: SAC, EOL: true, Tags: []string{"1803"}, Supports: Range{Version{0}, Version{16}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (troubleshooting assumes 1803 images)"},
	{Name: "Windows Server 2019", Build: "10.0.17763", Channel: LTSC, Tags: []string{"ltsc2019", "1809"}, Supports: Range{Version{14}, Version{33}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (GA from 1.14, build 17763); https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support, the v1.35 docs, lists only 2022 and 2025, so support is modelled to end after 1.33"},
	{Name: "Windows Server, version 1903", Build: "10.0.18362", Channel: SAC, EOL: true, Tags: []string{"1903"}, Supports: Range{Version{18}, Version{18}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (v1.18 row), https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (SAC: deprecated / EOL)"},
	{Name: "Windows Server, version 1909", Build: "10.0.18363", Channel: SAC, EOL: true, Tags: []string{"1909"}, Supports: Range{Version{18}, Version{20}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (v1.18-v1.20 rows), https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support"},
	{Name: "Windows Server, version 2004", Build: "10.0.19041", Channel: SAC, EOL: true, Tags: []string{"2004"}, Supports: Range{Version{19}, Version{20}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (v1.19-v1.20 rows), https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support"},
	{Name: "Windows Server, version 20H2", Build: "10.0.19042", Channel: SAC, EOL: true, Tags: []string{"20h2"}, Supports: Range{Version{20}, Version{21}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (SAC 1903-20H2 deprecated / EOL)"},
	{Name: "Windows Server 2022", Build: "10.0.20348", Channel: LTSC, Tags: []string{"ltsc2022"}, Supports: Range{From: Version{23}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (GA from 1.23, build 20348), https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support"},
	{Name: "Windows Server 2025", Build: "10.0.26100", Channel: LTSC, Tags: []string{"ltsc2025"}, Supports: Range{From: Version{32}}, Source: "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (GA from 1.32, build 26100), https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support"},
}

// Builds returns every known Windows Server build, oldest first.
func (Model) Builds() []Build { return append([]Build(nil), builds...) }

// BuildByNumber finds a build by its windows-build label value
// ("10.0.20348"); a longer version ("10.0.20348.2461") matches its build.
func (Model) BuildByNumber(s string) (Build, bool) {
	for _, b := range builds {
		if s == b.Build || (len(s) > len(b.Build) && s[:len(b.Build)] == b.Build && s[len(b.Build)] == '.') {
			return b, true
		}
	}
	return Build{}, false
}

// NodeSupported reports whether this Kubernetes release supports b as a
// node OS.
func (m Model) NodeSupported(b Build) bool { return b.Supports.Contains(m.V) }

// LTSCFor returns the newest Long-Term Servicing Channel build this
// Kubernetes release supports as a node OS, preferring one of the given
// builds (the cluster's) when any of them qualifies: the build to suggest
// in place of an end-of-life one.
func (m Model) LTSCFor(prefer []string) (Build, bool) {
	var best, bestPreferred Build
	for _, b := range builds {
		if b.Channel != LTSC || !m.NodeSupported(b) {
			continue
		}
		best = b
		for _, p := range prefer {
			if pb, ok := m.BuildByNumber(p); ok && pb.Build == b.Build {
				bestPreferred = b
			}
		}
	}
	if bestPreferred.Build != "" {
		return bestPreferred, true
	}
	return best, best.Build != ""
}

// KernelBuild trims a Windows version with its update revision
// (10.0.20348.2461, a node's kernelVersion) to its build (10.0.20348);
// false when the version has fewer than three parts.
func KernelBuild(v string) (string, bool) {
	parts := strings.SplitN(v, ".", 4)
	if len(parts) < 3 {
		return "", false
	}
	return strings.Join(parts[:3], "."), true
}
