package rules

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestImageRetag covers the tag suggestions of sac-image-eol.
func TestImageRetag(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	ws2019, _ := m.BuildByNumber("10.0.17763")
	ws2022, _ := m.BuildByNumber("10.0.20348")
	tests := []struct {
		ref   string
		build winsupport.Build
		want  string // "" when there is no suggestion
	}{
		{"mcr.microsoft.com/windows/servercore:1909", ws2022, "mcr.microsoft.com/windows/servercore:ltsc2022"},
		{"mcr.microsoft.com/windows/nanoserver:1903", ws2019, "mcr.microsoft.com/windows/nanoserver:1809"},
		{"mcr.microsoft.com/windows/servercore:1903", ws2019, "mcr.microsoft.com/windows/servercore:ltsc2019"},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-20H2", ws2022, "mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022"},
		{"microsoft/windowsservercore:1709", ws2022, "mcr.microsoft.com/windows/servercore:ltsc2022"},
		{"microsoft/nanoserver:1803", ws2019, "mcr.microsoft.com/windows/nanoserver:1809"},
		{"docker.io/microsoft/iis:windowsservercore-1803", ws2022, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"},
		{"myregistry.io:5000/team/windows-app:v2-2004", ws2022, "myregistry.io:5000/team/windows-app:v2-ltsc2022"},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", ws2022, "mcr.microsoft.com/windows/servercore:ltsc2022"},
		{"myregistry.io/app:10.0.18363.1500", ws2022, ""},                                 // a full version, not a tag word
		{"mcr.microsoft.com/windows/servercore:1909@sha256:0123456789abcdef", ws2022, ""}, // pinned by digest
		{"myregistry.io/app:1.0", ws2022, ""},                // no build at all
		{"mcr.microsoft.com/windows/servercore", ws2022, ""}, // no tag
	}
	for _, tt := range tests {
		got, ok := m.Retag(tt.ref, tt.build)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Retag(%q, %s) = %q, %v; want %q", tt.ref, tt.build.Build, got, ok, tt.want)
		}
	}
}

// TestLTSCFor covers which LTSC build sac-image-eol suggests.
func TestLTSCFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version int
		prefer  []string
		want    string
	}{
		{36, nil, "10.0.26100"},
		{36, []string{"10.0.20348"}, "10.0.20348"},
		{36, []string{"10.0.17763", "10.0.20348"}, "10.0.20348"},
		{36, []string{"10.0.17763"}, "10.0.26100"}, // 2019 is no longer supported
		{30, nil, "10.0.20348"},                    // 2025 is not yet supported
		{30, []string{"10.0.17763"}, "10.0.17763"},
		{30, []string{"10.0.17763.5820"}, "10.0.17763"},
		{22, nil, "10.0.17763"},
	}
	for _, tt := range tests {
		b, ok := winsupport.ForVersion(winsupport.Version{Minor: tt.version}).LTSCFor(tt.prefer)
		if !ok || b.Build != tt.want {
			t.Errorf("1.%d LTSCFor(%v) = %s, %v; want %s", tt.version, tt.prefer, b.Build, ok, tt.want)
		}
	}
}

// TestParseImageVariants covers the image table rows the image rules rely
// on: multi-platform repositories, their Linux variants, and the
// exceptions found in the real corpus.
func TestParseImageVariants(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	tests := []struct {
		ref  string
		want winsupport.Platform
	}{
		{"mcr.microsoft.com/dotnet/aspnet:8.0", winsupport.PlatformMulti},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-alpine", winsupport.PlatformLinux},
		{"mcr.microsoft.com/dotnet/runtime:8.0-bookworm-slim", winsupport.PlatformLinux},
		{"mcr.microsoft.com/dotnet/sdk:8.0-azurelinux3.0", winsupport.PlatformLinux},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-jammy-chiseled", winsupport.PlatformLinux},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022", winsupport.PlatformWindows},
		{"mcr.microsoft.com/powershell:lts-debian-12", winsupport.PlatformLinux},
		{"mcr.microsoft.com/powershell:lts-nanoserver-1809", winsupport.PlatformWindows},
		{"registry.k8s.io/e2e-test-images/busybox:1.36.1-1", winsupport.PlatformMulti},
		{"registry.k8s.io/e2e-test-images/nginx:1.15-4", winsupport.PlatformMulti},
		{"k8sprow.azurecr.io/kubernetes-e2e-test-images/nginx:1.15-alpine", winsupport.PlatformUnknown},
		{"sigwindowstools/hyperv-runtimeclass-mutating-webhook:latest", winsupport.PlatformLinux},
		{"sigwindowstools/kube-proxy:v1.30.0-flannel-hostprocess", winsupport.PlatformWindows},
		{"ghcr.io/flannel-io/flannel:v0.28.9", winsupport.PlatformLinux},
		{"quay.io/coreos/flannel:v0.11.0-amd64", winsupport.PlatformLinux},
	}
	for _, tt := range tests {
		if got := m.ParseImage(tt.ref).Platform; got != tt.want {
			t.Errorf("ParseImage(%q).Platform = %s, want %s", tt.ref, got, tt.want)
		}
	}
}

// TestOneFindingPerImage: an image that is an end-of-life Semi-Annual
// Channel build, unsupported and mismatched for the pools is one finding,
// sac-image-eol's, that says both; the other build rules leave it alone.
func TestOneFindingPerImage(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "sac-image-eol", "fire.yaml")
	per := map[int][]string{}
	for _, f := range fileFindings(t, cluster.Reference(), path, ImageBuildMismatch, WindowsBuildUnsupported, SACImageEOL) {
		per[f.Line] = append(per[f.Line], f.Rule+" "+f.Severity.String())
	}
	want := map[int][]string{
		10: {"sac-image-eol error"}, 13: {"sac-image-eol error"}, 15: {"sac-image-eol error"}, 17: {"sac-image-eol error"},
		19: {"sac-image-eol error"}, 21: {"sac-image-eol error"},
		34: {"sac-image-eol warning"}, // a build guessed from a private tag
		50: {"sac-image-eol warning"}, // HostProcess
	}
	if d := cmp.Diff(want, per); d != "" {
		t.Errorf("findings per image line (-want +got):\n%s", d)
	}
}

// TestPlaceholderOnce: with the whole suite, a field holding an unfilled
// placeholder is reported by load-error alone, not again by the rule that
// judges its format.
func TestPlaceholderOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "load-error", "placeholder-name.yaml")
	per := map[int][]string{}
	for _, f := range fileFindings(t, cluster.Reference(), path, Suite()...) {
		if f.Line == 7 || f.Line == 14 {
			per[f.Line] = append(per[f.Line], f.Rule)
		}
	}
	want := map[int][]string{7: {LoadError.ID}, 14: {LoadError.ID}}
	if d := cmp.Diff(want, per); d != "" {
		t.Errorf("findings on the placeholder lines (-want +got):\n%s", d)
	}
}
