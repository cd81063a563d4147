package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestImageUser: the user each fixture's Windows configs name, as the
// kubelet's runAsNonRoot check reads it, from the registry and then from
// the cache alone.
func TestImageUser(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	dir := t.TempDir()
	online := newResolver(t, s, Options{CacheDir: dir})
	tests := []struct {
		key  string
		want winsupport.ImageUser
	}{
		{"nano", winsupport.ImageUser{Name: "ContainerUser", Known: true}},
		{"ltsc2022", winsupport.ImageUser{Name: "", Known: true}},                    // single image, no User
		{"admin", winsupport.ImageUser{Name: "ContainerAdministrator", Known: true}}, // index: both entries agree
		{"multi", winsupport.ImageUser{Name: "", Known: true}},
		{"mixed", winsupport.ImageUser{}},   // entries disagree: unknown
		{"busybox", winsupport.ImageUser{}}, // no Windows entry
	}
	for _, r := range []*Resolver{online, newResolver(t, s, Options{CacheDir: dir, Offline: true})} {
		for _, tt := range tests {
			got := r.ImageUser(refs[tt.key])
			got.Source = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (offline %v) user (-want +got):\n%s", tt.key, r.o.Offline, diff)
			}
		}
	}
}

// TestRuleImageUser: rules ask the registry first and fall back to the
// model's table when the registry cannot say.
func TestRuleImageUser(t *testing.T) {
	t.Parallel()
	s, refs := start(t)
	r := newResolver(t, s, Options{})
	m := winsupport.ForVersion(winsupport.Newest)
	for _, tt := range []struct {
		ref  string
		want winsupport.ImageUser
	}{
		{refs["admin"], winsupport.ImageUser{Name: "ContainerAdministrator", Known: true}},
		{"mcr.microsoft.com/windows/nanoserver:ltsc2022", winsupport.ImageUser{Name: "ContainerUser", Known: true}}, // not in this registry: the table
		{refs["mixed"], winsupport.ImageUser{}},
	} {
		got := rule.ImageUser(r, m, tt.ref)
		got.Source = ""
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s user (-want +got):\n%s", tt.ref, diff)
		}
	}
}
