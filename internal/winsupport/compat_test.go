package winsupport

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHostRunsContainerdMatrix is containerd's own matrix
// (containerd/platforms platform_windows_compat_test.go Test_PlatformCompat).
func TestHostRunsContainerdMatrix(t *testing.T) {
	t.Parallel()
	const ltsc2019, ltsc2022, win11, v23H2, ltsc2025 = 17763, 20348, 22621, 25398, 26100
	for _, tt := range []struct {
		host, image uint16
		want        bool
	}{
		{ltsc2019, ltsc2019, true},
		{ltsc2019, ltsc2022, false},
		{ltsc2022, ltsc2019, false},
		{ltsc2022, ltsc2022, true},
		{win11, ltsc2019, false},
		{win11, ltsc2022, true},
		{v23H2, ltsc2019, false},
		{v23H2, ltsc2022, true},
		{ltsc2025, ltsc2022, true},
		{ltsc2022, ltsc2025, false},
		{ltsc2022, win11, false},
		{ltsc2025, win11, true},
		// Beyond containerd's matrix: the rule's edges.
		{ltsc2025, ltsc2025, true},
		{ltsc2025, ltsc2019, false},
		{ltsc2025, 26200, false},
		{27000, ltsc2022, false}, // past 2025 the oldest accepted is 26100
		{27000, ltsc2025, true},
		{18362, 18362, true},
		{18362, ltsc2019, false},
	} {
		t.Run(fmt.Sprintf("host_%d_image_%d", tt.host, tt.image), func(t *testing.T) {
			got := HostRuns(OSVersion{10, 0, tt.host}, OSVersion{10, 0, tt.image}, ProcessIsolation)
			if got != tt.want {
				t.Errorf("HostRuns(%d, %d, process) = %v, want %v", tt.host, tt.image, got, tt.want)
			}
		})
	}
}

func TestHostRunsHyperV(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		host, image string
		want        bool
	}{
		{"10.0.20348", "10.0.17763", true},
		{"10.0.26100", "10.0.17763.5820", true},
		{"10.0.20348", "10.0.20348", true},
		{"10.0.20348", "10.0.26100", false},
		{"10.0.17763", "10.0.20348", false},
		{"6.3.9600", "10.0.17763", false}, // major.minor must agree
		{"10.0.20348", "junk", false},
	} {
		if got := BuildRuns(tt.host, tt.image, HyperVIsolation); got != tt.want {
			t.Errorf("BuildRuns(%s, %s, hyperv) = %v, want %v", tt.host, tt.image, got, tt.want)
		}
	}
}

func TestParseOSVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]OSVersion{
		"10.0.20348.2461": {10, 0, 20348},
		"10.0.26100":      {10, 0, 26100},
		"10.0":            {},
		"10.0.x":          {},
		"10.0.70000":      {}, // out of uint16 range, as containerd reads it
		"":                {},
	} {
		if got := ParseOSVersion(in); got != want {
			t.Errorf("ParseOSVersion(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	linux := PlatformEntry{OS: "linux", Architecture: "amd64"}
	arm := PlatformEntry{OS: "linux", Architecture: "arm64"}
	w2019 := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.17763.6414"}
	w2022 := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.20348.3091"}
	w2022late := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.20348.3092"}
	w2025 := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.26100.2894"}
	w2025k := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.26100.3000", OSFeatures: []string{"win32k"}}
	wFeature := PlatformEntry{OS: "windows", Architecture: "amd64", OSVersion: "10.0.26100.4000", OSFeatures: []string{"something"}}
	noVersion := PlatformEntry{OS: "windows", Architecture: "amd64"}
	all := []PlatformEntry{linux, arm, w2019, w2022, w2025}
	for _, tt := range []struct {
		name    string
		host    Host
		iso     Isolation
		entries []PlatformEntry
		want    int // -1: no match
	}{
		{"2022 host takes 2022", Host{OS: "windows", Build: "10.0.20348"}, ProcessIsolation, all, 3},
		{"2025 host takes 2025", Host{OS: "windows", Build: "10.0.26100"}, ProcessIsolation, all, 4},
		{"2025 host runs a 2022-only index", Host{OS: "windows", Build: "10.0.26100"}, ProcessIsolation, []PlatformEntry{linux, w2022}, 1},
		{"2019 host has no match in a 2022/2025 index", Host{OS: "windows", Build: "10.0.17763"}, ProcessIsolation, []PlatformEntry{linux, w2022, w2025}, -1},
		{"hyper-v 2022 host takes the greatest it runs", Host{OS: "windows", Build: "10.0.20348"}, HyperVIsolation, []PlatformEntry{w2019, w2025}, 0},
		{"greatest revision", Host{OS: "windows", Build: "10.0.20348"}, ProcessIsolation, []PlatformEntry{w2022late, w2022}, 0},
		{"win32k is ignored", Host{OS: "windows", Build: "10.0.26100"}, ProcessIsolation, []PlatformEntry{w2025, w2025k}, 1},
		{"other features do not match", Host{OS: "windows", Build: "10.0.26100"}, ProcessIsolation, []PlatformEntry{wFeature}, -1},
		{"no os.version matches any build", Host{OS: "windows", Build: "10.0.17763"}, ProcessIsolation, []PlatformEntry{noVersion}, 0},
		{"linux node takes linux/amd64", Host{OS: "linux"}, ProcessIsolation, all, 0},
		{"arm64 linux node", Host{OS: "linux", Architecture: "arm64"}, ProcessIsolation, all, 1},
		{"linux node on a windows-only image", Host{OS: "linux"}, ProcessIsolation, []PlatformEntry{w2022}, -1},
		{"windows node on a linux-only image", Host{OS: "windows", Build: "10.0.20348"}, ProcessIsolation, []PlatformEntry{linux, arm}, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			i, ok := tt.host.Pick(tt.entries, tt.iso)
			if !ok {
				i = -1
			}
			if diff := cmp.Diff(tt.want, i); diff != "" {
				t.Errorf("Pick (-want +got):\n%s", diff)
			}
		})
	}
}
