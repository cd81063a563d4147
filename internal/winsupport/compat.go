package winsupport

import (
	"strconv"
	"strings"
)

// Which Windows image builds a Windows host runs, and which entry of an
// image index a Windows node pulls, as containerd and hcsshim decide it.
//
// Sources, one per rule below:
//   - containerd/platforms v1.0.0-rc (containerd v2.x): platform_windows_compat.go
//     checkWindowsHostAndContainerCompat, its LTSC list compatLTSCReleases,
//     getWindowsOSVersion, windowsMatchComparer.Less and
//     windowsStripFeaturesMatcher; platforms.go matcher.Match (OS features
//     of an entry must be a subset of the host's, and a host has none).
//   - Microsoft Learn, "Windows container version compatibility" (the
//     host OS compatibility tables): process isolation from Windows Server
//     2022 on runs the previous LTSC's images; Hyper-V isolation runs any
//     image build up to the host's.
//   - hcsshim osversion (osversion_windows.go, windowsbuilds.go): the build
//     numbers 17763 (RS5, ltsc2019), 20348 (ltsc2022), 22621, 25398 (23H2),
//     26100 (ltsc2025).

// Isolation is how a Windows container is isolated from its host.
type Isolation int

const (
	ProcessIsolation Isolation = iota // the default: the host's kernel
	HyperVIsolation                   // a utility VM with the image's kernel
)

func (i Isolation) String() string {
	if i == HyperVIsolation {
		return "hyperv"
	}
	return "process"
}

// OSVersion is the major.minor.build part of a Windows os.version
// ("10.0.20348.2461" is 10, 0, 20348). The zero value means unreadable.
type OSVersion struct {
	Major, Minor uint8
	Build        uint16
}

// ParseOSVersion reads a Windows version the way containerd does: fewer
// than three parts, or a part out of range, yields the zero value.
func ParseOSVersion(s string) OSVersion {
	if strings.Count(s, ".") < 2 {
		return OSVersion{}
	}
	major, rest, _ := strings.Cut(s, ".")
	minor, rest, _ := strings.Cut(rest, ".")
	build, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.ParseUint(major, 10, 8)
	mi, err2 := strconv.ParseUint(minor, 10, 8)
	b, err3 := strconv.ParseUint(build, 10, 16)
	if err1 != nil || err2 != nil || err3 != nil {
		return OSVersion{}
	}
	return OSVersion{uint8(ma), uint8(mi), uint16(b)}
}

// IsZero reports an unreadable or absent version.
func (v OSVersion) IsZero() bool { return v == OSVersion{} }

// compatLTSC are the LTSC builds with a stable ABI, ascending
// (containerd compatLTSCReleases).
var compatLTSC = []uint16{20348, 26100}

// HostRuns reports whether a Windows host of build host runs a container
// image of build image under the isolation.
//
// Process isolation needs the same major.minor; a host older than
// Windows Server 2022 (20348) needs the exact build; from 20348 on, a host
// runs image builds from the newest LTSC strictly below its own build
// (20348 when there is none) up to its own. Hyper-V isolation needs the
// same major.minor and an image build no newer than the host's.
func HostRuns(host, image OSVersion, iso Isolation) bool {
	if host.Major != image.Major || host.Minor != image.Minor {
		return false
	}
	if iso == HyperVIsolation {
		return image.Build <= host.Build
	}
	if host.Build < compatLTSC[0] {
		return host.Build == image.Build
	}
	oldest := compatLTSC[0]
	for i := len(compatLTSC) - 1; i >= 0; i-- {
		if host.Build > compatLTSC[i] {
			oldest = compatLTSC[i]
			break
		}
	}
	return oldest <= image.Build && image.Build <= host.Build
}

// BuildRuns is HostRuns for windows-build label values and os.version
// strings ("10.0.26100", "10.0.20348.2461"); unreadable values never run.
func BuildRuns(host, image string, iso Isolation) bool {
	h, i := ParseOSVersion(host), ParseOSVersion(image)
	if h.IsZero() || i.IsZero() {
		return false
	}
	return HostRuns(h, i, iso)
}

// PlatformEntry is one platform of an image: an entry of its index, or
// the config of a single-platform image.
type PlatformEntry struct {
	OS           string   `json:"os"`
	Architecture string   `json:"architecture"`
	Variant      string   `json:"variant,omitempty"`
	OSVersion    string   `json:"os.version,omitempty"`
	OSFeatures   []string `json:"os.features,omitempty"`
	Digest       string   `json:"digest,omitempty"` // the entry's manifest
	// User is the config's User ("" when it sets none); nil when the
	// config was not read (an index's non-Windows entries).
	User *string `json:"user,omitempty"`
}

// String is os/architecture[/variant][ os.version].
func (p PlatformEntry) String() string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	if p.OSVersion != "" {
		s += " " + p.OSVersion
	}
	return s
}

// Host is the platform a node pulls for.
type Host struct {
	OS           string // linux or windows
	Architecture string // amd64 when empty
	Build        string // windows-build label or full os.version
}

// Matches reports whether containerd on host would accept the entry under
// the isolation: same OS and architecture (an entry that names no
// architecture matches nothing, as in containerd), a compatible os.version
// (an entry without one matches any build), and no OS feature the host
// lacks, win32k aside (containerd strips it before matching).
func (h Host) Matches(p PlatformEntry, iso Isolation) bool {
	arch := h.Architecture
	if arch == "" {
		arch = "amd64"
	}
	if !strings.EqualFold(p.OS, h.OS) || normArch(p.Architecture) != arch {
		return false
	}
	for _, f := range p.OSFeatures {
		if f != "win32k" {
			return false
		}
	}
	if h.OS != "windows" || p.OSVersion == "" {
		return true
	}
	host := ParseOSVersion(h.Build)
	if host.IsZero() {
		return true // containerd's matcher with no host version accepts any
	}
	return HostRuns(host, ParseOSVersion(p.OSVersion), iso)
}

// normArch maps the architecture aliases containerd normalises.
func normArch(a string) string {
	switch strings.ToLower(a) {
	case "x86_64", "x86-64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	}
	return strings.ToLower(a)
}

// Pick returns the index of the entry a node pulls: among the entries the
// host matches, the one with the greatest os.version, compared as strings
// as containerd's windowsMatchComparer does (so 10.0.20348.9 sorts above
// 10.0.20348.10, as it does in containerd); the first in index order on a
// tie. ok is false when none matches: the pull fails with
// NoPlatformMatch.
func (h Host) Pick(entries []PlatformEntry, iso Isolation) (i int, ok bool) {
	best := -1
	for j, p := range entries {
		if !h.Matches(p, iso) {
			continue
		}
		if best < 0 || (h.OS == "windows" && p.OSVersion > entries[best].OSVersion) {
			best = j
		}
	}
	return best, best >= 0
}

// ResolvedImage is what a registry says of an image reference.
type ResolvedImage struct {
	Ref       string          `json:"ref"`
	Digest    string          `json:"digest"` // of what the tag points at
	Index     bool            `json:"index"`  // a multi-platform index
	Platforms []PlatformEntry `json:"platforms"`
	Cached    bool            `json:"cached,omitempty"` // answered from the on-disk cache
}

// Platform classifies the image by the OSes its platforms name.
func (r *ResolvedImage) Platform() Platform {
	var win, lin bool
	for _, p := range r.Platforms {
		win = win || p.OS == "windows"
		lin = lin || p.OS == "linux"
	}
	switch {
	case win && lin:
		return PlatformMulti
	case win:
		return PlatformWindows
	case lin:
		return PlatformLinux
	}
	return PlatformUnknown
}

// Describe names the image's platforms for a message: "index
// sha256:ab12… lists windows/amd64 10.0.20348.2461, linux/amd64".
func (r *ResolvedImage) Describe() string {
	what := "manifest"
	if r.Index {
		what = "index"
	}
	d := r.Digest
	if len(d) > 19 {
		d = d[:19] + "…"
	}
	names := make([]string, len(r.Platforms))
	for i, p := range r.Platforms {
		names[i] = p.String()
	}
	if len(names) == 0 {
		return "the registry's " + what + " " + d + " lists no platform"
	}
	return "the registry's " + what + " " + d + " lists " + strings.Join(names, ", ")
}

// RunnableBuilds are the known Windows Server builds whose images a host
// of build host runs under the isolation, oldest first: the builds to
// suggest in a fix.
func (Model) RunnableBuilds(host string, iso Isolation) []Build {
	var out []Build
	for _, b := range builds {
		if BuildRuns(host, b.Build, iso) {
			out = append(out, b)
		}
	}
	return out
}
