package winsupport

import "testing"

// TestThirdPartyBuilds: Windows builds read from third parties' tags are
// marked inferred; Microsoft's are not.
func TestThirdPartyBuilds(t *testing.T) {
	t.Parallel()
	m := ForVersion(Newest)
	for _, tt := range []struct {
		ref, build string
		inferred   bool
	}{
		{"example.com/agent:1809", "10.0.17763", true},
		{"example.com/windows-agent:1809", "10.0.17763", false}, // a Windows repository: a build tag
		{"example.com/agent:1809-jan2020", "10.0.17763", true},
		{"example.com/agent:ltsc2019", "10.0.17763", false}, // a build tag, as Microsoft's
		{"example.com/agent:1.0-10.0.17763.5820", "10.0.17763", false},
		{"example.com/agent:windows-2019-amd64", "10.0.17763", true},
		{"example.com/agent:v2025.4-windows2019", "10.0.17763", true},
		{"example.com/agent:2.1-windows-ltsc-2022", "10.0.20348", true},
		{"example.com/agent:1.0-ws2025", "10.0.26100", true},
		{"mcr.microsoft.com/windows/servercore:ltsc2022", "10.0.20348", false},
		{"example.com/agent:1809.2", "", false},
		{"example.com/agent:2019.1", "", false},
		{"example.com/agent:v2022", "", false},
		{"nginx:1.27", "", false},
	} {
		img := m.ParseImage(tt.ref)
		got := ""
		if img.Build != nil {
			got = img.Build.Build
		}
		if got != tt.build || img.BuildInferred != tt.inferred {
			t.Errorf("%s: build %q inferred %v, want %q %v", tt.ref, got, img.BuildInferred, tt.build, tt.inferred)
		}
	}
}
