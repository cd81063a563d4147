package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKinds checks each kind through both endpoints in enforce mode: a
// forbidden field is denied in the API server's words, an unpinned Windows
// workload is fixed by /mutate so that /validate then admits it, an
// unpinned Linux workload is warned about and pinned, and a clean one
// passes untouched.
func TestKinds(t *testing.T) {
	t.Parallel()
	f := start(t, "", nil)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			bad := object(t, k, "web", "shop", specWindowsRunAsUser, nil)
			v := f.admit("validate", review(t, bad, ""))
			want := k.spec + "securityContext.runAsUser: Forbidden: cannot be set for a windows pod (windows-forbidden-field)"
			if v.Allowed || v.Result == nil || v.Result.Message != want || v.Result.Code != http.StatusForbidden {
				t.Errorf("forbidden field: allowed=%v result=%+v, want denied 403 with %q", v.Allowed, v.Result, want)
			}
			if m := f.admit("mutate", review(t, bad, "")); m.Patch != nil {
				t.Errorf("forbidden field: /mutate patched %s; removing it is not a safe fix", m.Patch)
			}

			unpinned := object(t, k, "web", "shop", specWindowsUnpinned, nil)
			v = f.admit("validate", review(t, unpinned, ""))
			if v.Allowed || !strings.HasSuffix(v.Result.Message, "(missing-os-pin)") || !strings.HasPrefix(v.Result.Message, k.spec+"nodeSelector: Windows workload") {
				t.Errorf("unpinned Windows: /validate allowed=%v result=%+v, want missing-os-pin denial", v.Allowed, v.Result)
			}
			m := f.admit("mutate", review(t, unpinned, ""))
			if !m.Allowed || m.PatchType == nil || string(*m.PatchType) != "JSONPatch" {
				t.Fatalf("unpinned Windows: /mutate = %+v, want a JSONPatch", m)
			}
			fixed := applyPatch(t, unpinned, m.Patch)
			spec := podSpec(t, fixed, k)
			wantSpec := map[string]any{
				"nodeSelector": map[string]any{"kubernetes.io/os": "windows"},
				"os":           map[string]any{"name": "windows"},
				"tolerations":  []any{map[string]any{"key": "os", "operator": "Equal", "value": "windows", "effect": "NoSchedule"}},
			}
			for field, want := range wantSpec {
				if diff := cmp.Diff(want, spec[field]); diff != "" {
					t.Errorf("fixed %s (-want +got):\n%s", field, diff)
				}
			}
			if got, want := m.AuditAnnotations["fixed-by"], "missing-os-pin,missing-spec-os,missing-windows-toleration"; got != want {
				t.Errorf("fixed-by audit annotation %q, want %q", got, want)
			}
			if v := f.admit("validate", review(t, fixed, "")); !v.Allowed || len(v.Warnings) > 0 {
				t.Errorf("fixed Windows workload: /validate allowed=%v warnings=%q result=%+v, want allowed silently", v.Allowed, v.Warnings, v.Result)
			}

			linux := object(t, k, "web", "shop", specLinuxUnpinned, nil)
			v = f.admit("validate", review(t, linux, ""))
			wantRule := "missing-os-pin: "
			if k.name == "DaemonSet" {
				wantRule = "linux-daemonset-unpinned: "
			}
			if !v.Allowed || len(v.Warnings) != 1 || !strings.HasPrefix(v.Warnings[0], wantRule) {
				t.Errorf("unpinned Linux: allowed=%v warnings=%q, want one %s warning", v.Allowed, v.Warnings, wantRule)
			}
			for _, w := range v.Warnings {
				if n := len([]rune(w)); n > maxWarningLen {
					t.Errorf("warning of %d characters: %q", n, w)
				}
			}
			m = f.admit("mutate", review(t, linux, ""))
			if got := podSpec(t, applyPatch(t, linux, m.Patch), k)["nodeSelector"]; !cmp.Equal(got, map[string]any{"kubernetes.io/os": "linux"}) {
				t.Errorf("unpinned Linux: fixed nodeSelector %v, want kubernetes.io/os: linux", got)
			}

			clean := object(t, k, "web", "shop", specLinuxPinned, nil)
			for _, ep := range []string{"validate", "mutate"} {
				r := f.admit(ep, review(t, clean, ""))
				if !r.Allowed || r.Patch != nil || r.Warnings != nil || r.Result != nil {
					t.Errorf("clean: /%s = %+v, want allowed untouched", ep, r)
				}
			}
		})
	}
}

// podSpec returns the pod spec of an object of kind k, as JSON values.
func podSpec(t *testing.T, obj string, k kind) map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(obj), &v); err != nil {
		t.Fatal(err)
	}
	for _, step := range strings.Split(strings.TrimSuffix(k.spec, "."), ".") {
		m, _ := v.(map[string]any)
		v = m[step]
	}
	m, _ := v.(map[string]any)
	return m
}

// TestModes checks what each mode does with the same objects.
func TestModes(t *testing.T) {
	t.Parallel()
	pod := kinds[0]
	tests := []struct {
		mode        Mode
		denied      bool // the forbidden field
		warning     string
		patched     bool // the unpinned Windows pod
		unpinnedDen bool
	}{
		{mode: Enforce, denied: true, patched: true, unpinnedDen: true},
		{mode: Mutate, warning: "windows-forbidden-field: spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod", patched: true},
		{mode: Warn, warning: "windows-forbidden-field: spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod"},
	}
	for _, tc := range tests {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			f := start(t, "apiVersion: winkube.io/v1alpha1\nkind: WebhookConfig\nmode: "+string(tc.mode)+"\n", nil)
			v := f.admit("validate", review(t, object(t, pod, "web", "shop", specWindowsRunAsUser, nil), ""))
			if v.Allowed == tc.denied {
				t.Errorf("forbidden field: allowed=%v, want %v", v.Allowed, !tc.denied)
			}
			if tc.warning != "" && (len(v.Warnings) != 1 || v.Warnings[0] != tc.warning) {
				t.Errorf("forbidden field: warnings %q, want [%q]", v.Warnings, tc.warning)
			}
			unpinned := object(t, pod, "web", "shop", specWindowsUnpinned, nil)
			if m := f.admit("mutate", review(t, unpinned, "")); (m.Patch != nil) != tc.patched {
				t.Errorf("unpinned: patch %s, want patched=%v", m.Patch, tc.patched)
			}
			v = f.admit("validate", review(t, unpinned, ""))
			if v.Allowed == tc.unpinnedDen {
				t.Errorf("unpinned: allowed=%v, want %v", v.Allowed, !tc.unpinnedDen)
			}
			if !tc.unpinnedDen && !strings.HasPrefix(strings.Join(v.Warnings, "\n"), "missing-os-pin: Windows workload") {
				t.Errorf("unpinned: warnings %q, want the missing-os-pin error first", v.Warnings)
			}
		})
	}
}
