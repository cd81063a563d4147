package chart

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/manifest"
)

// rendered returns the text of the input named name.
func rendered(t *testing.T, ins []manifest.Input, name string) string {
	t.Helper()
	for _, in := range ins {
		if in.Name == name {
			r, err := in.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(r)
			return string(b)
		}
	}
	var names []string
	for _, in := range ins {
		names = append(names, in.Name)
	}
	t.Fatalf("no input %s among %v", name, names)
	return ""
}

// lineOf is the 1-based line of the first rendered line that, trimmed,
// is want.
func lineOf(t *testing.T, text, want string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == want {
			return i + 1
		}
	}
	t.Fatalf("%q not rendered in:\n%s", want, text)
	return 0
}

func TestRenderMapsLinesToTemplates(t *testing.T) {
	t.Parallel()
	ins, errs := Render("testdata/app", Options{ReleaseName: "rel", Set: []string{"hostNetwork=true"}, KubeVersion: "1.36"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tmpl := filepath.Join("testdata", "app", "templates", "deployment.yaml")
	name := tmpl + " (rendered)"
	text := rendered(t, ins, name)
	var origin manifest.Origin
	for _, in := range ins {
		if in.Name == name {
			origin = in.Origin
		}
	}
	tests := []struct {
		rendered string
		line     int // in templates/deployment.yaml
		col      int // -1: the rendered column holds
	}{
		{"name: rel-web", 4, -1},
		{"app.kubernetes.io/instance: rel", 6, 5}, // emitted by the include on line 6
		{"replicas: 2", 8, -1},
		{"hostNetwork: true", 18, -1}, // inside the if taken
		{"nodeSelector:", 20, -1},
		{"kubernetes.io/os: windows", 21, 9}, // emitted by toYaml
		{`image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"`, 28, -1},
		{"privileged: false", 30, -1},
	}
	for _, tt := range tests {
		file, line, col, ok := origin(lineOf(t, text, tt.rendered), "")
		if diff := cmp.Diff([]any{tmpl, tt.line, tt.col, true}, []any{file, line, col, ok}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.rendered, diff)
		}
	}
}

func TestRenderChartsFolderAndNotes(t *testing.T) {
	t.Parallel()
	ins, errs := Render("testdata/app", Options{ReleaseName: "rel"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var names []string
	for _, in := range ins {
		names = append(names, filepath.ToSlash(in.Name))
	}
	want := []string{
		"testdata/app/charts/sidecar/templates/configmap.yaml (rendered)",
		"testdata/app/templates/deployment.yaml (rendered)",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if text := rendered(t, ins, ins[0].Name); !strings.Contains(text, "name: rel-sidecar") {
		t.Errorf("subchart rendered as:\n%s", text)
	}
}

func TestRenderErrorsArePositioned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir   string
		opts  Options
		file  string
		line  int
		class error
		msg   string
	}{
		{"testdata/bad", Options{}, "testdata/bad/templates/cm.yaml", 6, manifest.ErrTemplate, `function "nosuchfunction" not defined`},
		{"testdata/required", Options{KubeVersion: "1.36"}, "testdata/required/templates/cm.yaml", 6, manifest.ErrTemplate, "image is required"},
		{"testdata/required", Options{KubeVersion: "1.29"}, "testdata/required/Chart.yaml", 4, manifest.ErrInvalid, "chart requires kubeVersion: >=1.30.0-0 which is incompatible with Kubernetes v1.29"},
		{"testdata/nodeps", Options{}, "testdata/nodeps/Chart.yaml", 4, manifest.ErrRead, "found in Chart.yaml, but missing in charts/ directory: redis"},
		{"testdata/required", Options{Values: []string{"testdata/missing-values.yaml"}}, "testdata/missing-values.yaml", 0, manifest.ErrRead, "values file"},
		{"testdata/required", Options{Set: []string{"a=b,c"}}, "--set", 0, manifest.ErrInvalid, `"a=b,c"`},
		{"testdata/none", Options{}, "testdata/none", 0, manifest.ErrRead, "cannot load chart"},
	}
	for _, tt := range tests {
		t.Run(tt.dir+tt.msg, func(t *testing.T) {
			t.Parallel()
			_, errs := Render(tt.dir, tt.opts)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
			}
			e := errs[0]
			if filepath.ToSlash(e.File) != tt.file || e.Line != tt.line || !errors.Is(e, tt.class) || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %v (class %v), want %s:%d %v containing %q", e, e.Class, tt.file, tt.line, tt.class, tt.msg)
			}
		})
	}
}

// TestRenderProjectChart: the project's own chart renders, and every line
// of every rendered template maps back to a line of its template.
func TestRenderProjectChart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "charts", "winkube-webhook")
	ins, errs := Render(dir, Options{ReleaseName: "winkube", Namespace: "winkube-system", KubeVersion: "1.36"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(ins) < 5 {
		t.Fatalf("rendered %d templates, want the chart's 6 manifests", len(ins))
	}
	for _, in := range ins {
		text := rendered(t, ins, in.Name)
		for i, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if _, _, _, ok := in.Origin(i+1, ""); !ok {
				t.Errorf("%s:%d %q maps to no template line", in.Name, i+1, l)
			}
		}
	}
}
