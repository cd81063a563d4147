package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestWindowsNeedles holds mayFireCondition's Windows-image test to
// winsupport: every reference ParseImage calls Windows, or whose tag names
// a build, contains a needle. The references are the image table's
// Windows rows and every build tag on a Linux and an unknown repository,
// written as users write them.
func TestWindowsNeedles(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	needles := windowsNeedles(m)
	var refs []string
	for _, r := range m.ImagePrefixes() {
		p := strings.TrimSuffix(r.Prefix, "/")
		refs = append(refs, p+"/app:1.0", p+":1.0", strings.TrimPrefix(p, "docker.io/")+":latest", "index."+p+":v2", strings.ToUpper(p)+":X")
	}
	for _, b := range m.Builds() {
		for _, tag := range append([]string{b.Build}, b.Tags...) {
			for _, repo := range []string{"nginx", "example.com/team/app", "mcr.microsoft.com/oss/kubernetes/pause", "ghcr.io/x/y"} {
				refs = append(refs, repo+":"+tag, repo+":v1-"+tag, repo+":windowsservercore-"+tag, repo+":nanoserver-"+strings.ToUpper(tag)+"-amd64")
			}
		}
	}
	// Third parties' tags on repositories the table does not know
	// (winsupport's thirdPartyBuild).
	for _, tag := range []string{"1809", "1809-jan2020", "windows-2019-amd64", "v2025.4-windows2019", "windows-ltsc-2022", "win2022", "ws2025", "WS2019-amd64", "windowsserver2022", "servercore2019", "nanoserver2022"} {
		refs = append(refs, "example.com/team/app:"+tag, "ghcr.io/x/y:"+tag)
	}
	var windows int
	for _, ref := range refs {
		img := m.ParseImage(ref)
		if img.Platform != winsupport.PlatformWindows && img.Build == nil {
			continue
		}
		windows++
		low := strings.ToLower(ref)
		found := false
		for _, n := range needles {
			if strings.Contains(low, n) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: ParseImage says %s, build %v, but it contains none of %q: the policies would skip it", ref, img.Platform, img.Build, needles)
		}
	}
	if windows == 0 {
		t.Fatal("no reference was Windows: the test proves nothing")
	}
	t.Logf("%d of %d references Windows or of a build; needles %q", windows, len(refs), needles)
}

// TestNetworkChecksNeedWindows: every networking check starts with the
// Windows precondition, which mayFireCondition's first case relies on (a
// workload without a Windows signal is skipped): a check that could fire
// without it would be skipped where lint reports it.
func TestNetworkChecksNeedWindows(t *testing.T) {
	t.Parallel()
	for r, e := range networkChecks {
		for _, c := range e(winsupport.Default()) {
			if !strings.HasPrefix(c.expr, win+" && ") {
				t.Errorf("%s: check %q does not start with %q", r.ID, c.expr, win+" && ")
			}
		}
	}
}

// TestGMSASignal holds the skip's gMSA test to the rule: every annotation
// key gmsa-missing-credential-spec-name reports contains the needle
// identitySignal looks for, so the skip never hides one.
func TestGMSASignal(t *testing.T) {
	t.Parallel()
	const needle = "gmsa-credential-spec"
	if !strings.Contains(identitySignal("[]"), "'"+needle+"'") {
		t.Fatalf("identitySignal does not look for %q", needle)
	}
	for _, k := range []string{rules.GMSAPodAnnotation, "web" + rules.GMSAContainerAnnotation} {
		for _, key := range []string{k, k + rules.GMSANameSuffix} {
			if !strings.Contains(key, needle) {
				t.Errorf("the rule reports annotation %q, which lacks %q: the skip would hide it", key, needle)
			}
		}
	}
}

// TestDeletedReposHoldANeedle: windows-image-repository-deleted fires in a
// workload of any OS, so each repository it knows must hold a Windows
// needle for the skip condition to let its workloads through.
func TestDeletedReposHoldANeedle(t *testing.T) {
	t.Parallel()
	needles := windowsNeedles(winsupport.Default())
	for _, r := range winsupport.DeletedRepos() {
		if !slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(strings.ToLower(r), n) }) {
			t.Errorf("%s holds none of %q: the policies would skip its workloads", r, needles)
		}
		if !strings.HasPrefix(r, "docker.io/") {
			t.Errorf("%s: the exported message trims a docker.io/ prefix it does not have", r)
		}
	}
}
