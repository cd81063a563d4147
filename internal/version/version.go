package version

import (
	"runtime/debug"
	"strings"

	"github.com/winkube/winkube/internal/winsupport"
)

// Release is set at link time by release builds
// (-X github.com/winkube/winkube/internal/version.Release=v1.2.3); empty
// otherwise, when the build info says what was built.
var Release string

// Info describes the running binary.
type Info struct {
	// Version is the release or module version: "v1.2.3" for a release or
	// `go install ...@v1.2.3`, a pseudo-version for a build from a clone
	// with VCS stamping, "(devel)" when the toolchain knew none.
	Version string `json:"version"`
	// Revision, Time and Modified describe the VCS checkout the binary was
	// built from, when the toolchain stamped it (go build in a clone).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
	// Module is the main module's path.
	Module string `json:"module"`
	// Kubernetes is the range of Kubernetes releases the model covers, and
	// KubernetesDefault the release assumed when none is given.
	Kubernetes        string `json:"kubernetes"`
	KubernetesDefault string `json:"kubernetesDefault"`
}

// Get reads the running binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi, Release)
}

func fromBuildInfo(bi *debug.BuildInfo, release string) Info {
	in := Info{
		Version:           "(devel)",
		Module:            "github.com/winkube/winkube",
		Kubernetes:        winsupport.Range{From: winsupport.Oldest, Until: winsupport.Newest}.String(),
		KubernetesDefault: winsupport.Newest.String(),
	}
	if bi != nil {
		in.GoVersion = bi.GoVersion
		if bi.Main.Path != "" {
			in.Module = bi.Main.Path
		}
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if release != "" {
		in.Version = release
	}
	return in
}

// String is the one-line form `winkube --version` prints.
func (in Info) String() string {
	var b strings.Builder
	b.WriteString(in.Version)
	if in.Revision != "" {
		b.WriteString(" (")
		b.WriteString(shortRevision(in.Revision))
		if in.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	b.WriteString(", Kubernetes ")
	b.WriteString(in.Kubernetes)
	if in.GoVersion != "" {
		b.WriteString(", ")
		b.WriteString(in.GoVersion)
	}
	return b.String()
}

func shortRevision(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}
