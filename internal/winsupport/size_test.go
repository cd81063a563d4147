package winsupport

import "testing"

func TestImageBase(t *testing.T) {
	t.Parallel()
	m := Default()
	cases := []struct {
		ref   string
		name  string // "" when the base is unknown
		large bool
		size  string
	}{
		{"mcr.microsoft.com/windows/nanoserver:ltsc2022", "Nano Server", false, "~280 MB"},
		{"mcr.microsoft.com/windows/servercore:ltsc2022", "Server Core", true, "~4.7 GB"},
		{"mcr.microsoft.com/windows/servercore/insider:10.0.26100", "Server Core", true, "~4.7 GB"},
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "IIS on Server Core", true, "~4.7 GB"},
		{"mcr.microsoft.com/windows/server:ltsc2022", "Windows Server", true, ""},
		{"mcr.microsoft.com/windows:ltsc2019", "Windows (full)", true, "~9 GB"},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022", ".NET Framework on Server Core", true, "~4.7 GB"},
		{"microsoft/iis", "IIS on Server Core", true, "~4.7 GB"},
		{"docker.io/microsoft/nanoserver:1809", "Nano Server", false, "~280 MB"},
		// Multi-variant images name their base in the tag.
		{"mcr.microsoft.com/powershell:lts-windowsservercore-ltsc2022", "Server Core", true, "~4.7 GB"},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022", "Nano Server", false, "~280 MB"},
		{"python:3.12-windowsservercore-ltsc2022", "Server Core", true, "~4.7 GB"},
		// A repository that merely starts like a known one is not it.
		{"mcr.microsoft.com/windows/serverless-thing:1.0", "", false, ""},
		{"mcr.microsoft.com/windows/other:1.0", "", false, ""},
		// Unknown bases and Linux images.
		{"myregistry/app:ltsc2022", "", false, ""},
		{"mcr.microsoft.com/dotnet/aspnet:8.0", "", false, ""},
		{"nginx:1.27", "", false, ""},
	}
	for _, c := range cases {
		b, ok := m.ImageBase(c.ref)
		if got := map[bool]string{true: b.Name}[ok]; got != c.name || b.Size() != c.size {
			t.Errorf("ImageBase(%q) = %q %q, %v; want %q %q", c.ref, b.Name, b.Size(), ok, c.name, c.size)
		}
		if _, large := m.LargeImage(c.ref); large != c.large {
			t.Errorf("LargeImage(%q) = %v, want %v", c.ref, large, c.large)
		}
		if ok && b.Source == "" {
			t.Errorf("ImageBase(%q): row has no source", c.ref)
		}
	}
}

func TestBaseImagesHaveSources(t *testing.T) {
	t.Parallel()
	bases := Default().BaseImages()
	if len(bases) < 5 {
		t.Fatalf("BaseImages() = %d families, want at least 5", len(bases))
	}
	for _, b := range bases {
		if b.Name == "" || b.Source == "" {
			t.Errorf("base image %+v needs a name and a source", b)
		}
	}
}
