package policy

import (
	"testing"

	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestEveryRuleExportedOrExplained holds the policy table to the suite:
// every rule has CEL or a reason, never both, and neither table names a
// rule the suite does not have.
func TestEveryRuleExportedOrExplained(t *testing.T) {
	t.Parallel()
	suite := map[string]bool{}
	for _, r := range rules.Suite() {
		suite[r.ID] = true
		_, has := exported[r.ID]
		why, skipped := notExportable[r.ID]
		switch {
		case has && skipped:
			t.Errorf("%s is both exported and listed as not exportable (%q)", r.ID, why)
		case !has && !skipped:
			t.Errorf("%s is neither exported nor listed in notExportable with a reason; add its CEL to the table or say why it cannot be exported", r.ID)
		case skipped && why == "":
			t.Errorf("%s: notExportable gives no reason", r.ID)
		}
	}
	for id := range exported {
		if !suite[id] {
			t.Errorf("the policy table exports %q, which is not in rules.Suite()", id)
		}
	}
	for id := range notExportable {
		if !suite[id] {
			t.Errorf("notExportable lists %q, which is not in rules.Suite()", id)
		}
	}
}

// TestLinuxShellsAgree holds the CEL list of shells to the model.
func TestLinuxShellsAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	for _, sh := range linuxShells {
		if !m.LinuxShell(sh) {
			t.Errorf("linuxShells has %q, which winsupport does not call a Linux shell", sh)
		}
	}
	listed := map[string]bool{}
	for _, sh := range linuxShells {
		listed[sh] = true
	}
	// Every command the model calls a shell among plausible spellings must
	// be listed.
	for _, dir := range []string{"", "/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/"} {
		for _, name := range []string{"sh", "bash", "ash", "zsh", "dash", "ksh", "env", "busybox", "cmd", "powershell", "pwsh"} {
			for _, ext := range []string{"", ".exe"} {
				c := dir + name + ext
				if m.LinuxShell(c) && !listed[c] {
					t.Errorf("winsupport calls %q a Linux shell but the policies' list lacks it", c)
				}
			}
		}
	}
}

// TestVersionDependentRules: rules about features a release always has
// export nothing for it, and something for a release without them.
func TestVersionDependentRules(t *testing.T) {
	t.Parallel()
	newest := winsupport.Default()
	old := winsupport.ForVersion(winsupport.Version{Minor: 23})
	for _, id := range []string{"windows-subpath", "windows-sidecar-unsupported"} {
		if Covers(id, newest) {
			t.Errorf("%s: exported for %s, where it cannot fire", id, newest.V)
		}
		if !Covers(id, old) {
			t.Errorf("%s: not exported for %s, where it fires", id, old.V)
		}
	}
}
