package chart

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
)

// note is what a test compares of a note.
type note struct {
	File string
	Line int
	Msg  string
	Hint string
}

func notes(t *testing.T, errs []*manifest.Error) []note {
	t.Helper()
	var out []note
	for _, e := range errs {
		if !errors.Is(e, ErrWindowsNotRendered) {
			t.Fatalf("not a note: %v", e)
		}
		out = append(out, note{e.File, e.Line, e.Msg, e.Hint})
	}
	return out
}

func TestWindowsNotRenderedNamesItsRule(t *testing.T) {
	t.Parallel()
	if rules.ByID(WindowsNotRenderedID) != rules.WindowsTemplateNotRendered {
		t.Fatalf("%s is not rules.WindowsTemplateNotRendered's ID", WindowsNotRenderedID)
	}
	var n interface{ RuleID() string }
	if !errors.As(&manifest.Error{Class: ErrWindowsNotRendered}, &n) || n.RuleID() != WindowsNotRenderedID {
		t.Fatal("a note's class does not name its rule")
	}
}

func TestWindowsTemplatesNotRendered(t *testing.T) {
	t.Parallel()
	tmpl := func(c, name string) string { return filepath.Join("testdata", c, "templates", name) }
	const checked = ", so winkube checked none of it"
	tests := []struct {
		name  string
		chart string
		set   []string
		want  []note
	}{{
		// The Linux-only template (agent-linux.yaml, guarded and off),
		// the helper, NOTES.txt, the Windows template that rendered
		// (always-windows.yaml) and the one carrying winkube.io/ignore are
		// quiet.
		name: "defaults", chart: "wintemplates",
		want: []note{
			{tmpl("wintemplates", "agent-windows.yaml"), 2, "Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard windows.enabled is false" + checked, "lint again with --set windows.enabled=true to check it"},
			{tmpl("wintemplates", "compound.yaml"), 1, "Windows template (windowsOptions) renders nothing with these values: its guard enableWindows is false" + checked, "lint again with --set enableWindows=true to check it"},
			{tmpl("wintemplates", "condition.yaml"), 1, "Windows template (kubernetes.io/os: windows) renders nothing with these values: its condition `if eq .Values.image \"windows\"` is false or empty" + checked, "lint again with --set or --values making that condition true to check it"},
		},
	}, {
		name: "both operands of and off", chart: "wintemplates", set: []string{"kubelet.enabled=false", "windows.enabled=true", "image=windows"},
		want: []note{
			{tmpl("wintemplates", "compound.yaml"), 1, "Windows template (windowsOptions) renders nothing with these values: its guard kubelet.enabled and enableWindows are false" + checked, "lint again with --set kubelet.enabled=true --set enableWindows=true to check it"},
		},
	}, {
		name: "every Windows value on", chart: "wintemplates", set: []string{"windows.enabled=true", "enableWindows=true", "image=windows"},
	}, {
		// Mirrors kubernetes-sigs/secrets-store-csi-driver
		// charts/secrets-store-csi-driver/templates/secrets-store-csi-driver-windows.yaml.
		name: "secrets-store-csi-driver", chart: "mirror-secrets-store",
		want: []note{{tmpl("mirror-secrets-store", "secrets-store-csi-driver-windows.yaml"), 1, "Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard windows.enabled is false" + checked, "lint again with --set windows.enabled=true to check it"}},
	}, {
		name: "secrets-store-csi-driver on", chart: "mirror-secrets-store", set: []string{"windows.enabled=true"},
	}, {
		// Mirrors newrelic/nri-kubernetes
		// charts/newrelic-infrastructure/templates/kubelet/daemonset-windows.yaml:
		// kubelet.enabled is on by default, so only enableWindows is named.
		name: "newrelic-infrastructure", chart: "mirror-newrelic",
		want: []note{{tmpl("mirror-newrelic", filepath.Join("kubelet", "daemonset-windows.yaml")), 1, "Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard enableWindows is false" + checked, "lint again with --set enableWindows=true to check it"}},
	}, {
		name: "newrelic-infrastructure on", chart: "mirror-newrelic", set: []string{"enableWindows=true"},
	}, {
		// Mirrors kubernetes-sigs/sig-storage-local-static-provisioner
		// helm/provisioner/templates/daemonset_windows.yaml, which renders
		// a lone --- when off.
		name: "local-static-provisioner", chart: "mirror-local-provisioner",
		want: []note{{tmpl("mirror-local-provisioner", "daemonset_windows.yaml"), 2, "Windows template (kubernetes.io/os: windows) renders nothing with these values: its guard enableWindows is false" + checked, "lint again with --set enableWindows=true to check it"}},
	}, {
		name: "local-static-provisioner on", chart: "mirror-local-provisioner", set: []string{"enableWindows=true"},
	}, {
		name: "no Windows marker", chart: "app",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, errs := Render(filepath.Join("testdata", tt.chart), Options{Set: tt.set, KubeVersion: "1.36"})
			if diff := cmp.Diff(tt.want, notes(t, errs)); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWindowsNoteInSubchart(t *testing.T) {
	t.Parallel()
	// A subchart reads its values under its name: the --set says so.
	g := guard{line: 1, kw: "if", cond: ".Values.windows.enabled"}
	msg, hint := g.explain(valuesPrefix("app/charts/agent/templates/ds-windows.yaml"), map[string]any{"agent": map[string]any{"windows": map[string]any{"enabled": false}}})
	if msg != "its guard agent.windows.enabled is false" || hint != "lint again with --set agent.windows.enabled=true to check it" {
		t.Errorf("got %q, %q", msg, hint)
	}
}

func TestRenderedNothing(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]bool{
		"":                            true,
		"\n---\n# Source: x.yaml\n\n": true,
		"  \n...\n":                   true,
		"---\nkind: Pod\n":            false,
		"a: 1":                        false,
	} {
		if got := renderedNothing(out); got != want {
			t.Errorf("renderedNothing(%q) = %v, want %v", out, got, want)
		}
	}
}

func TestWindowsMarker(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, src, want string }{
		{"c/templates/ds.yaml", "nodeSelector:\n  \"kubernetes.io/os\": \"windows\"\n", "kubernetes.io/os: windows"},
		{"c/templates/ds.yaml", "      hostProcess: true\n", "hostProcess"},
		{"c/templates/ds.yaml", "image: mcr.microsoft.com/windows/servercore:ltsc2022\n", "a Windows image"},
		{"c/templates/daemonset-Windows.yaml", "kind: DaemonSet\n", "windows in its file name"},
		{"c/templates/ds.yaml", "nodeSelector:\n  kubernetes.io/os: linux\n", ""},
		{"c/templates/ds.yaml", "{{- if not .Values.windows.enabled }}\n", ""},
	} {
		if got := windowsMarker(tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("windowsMarker(%q, %q) = %q, want %q", tt.name, tt.src, got, tt.want)
		}
	}
}
