package inputs

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/chart"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/rule"
)

func readAll(r io.ReadCloser) ([]byte, error) {
	defer r.Close()
	return io.ReadAll(r)
}

// TestLintChartPointsAtTemplates: a finding in a rendered chart is at the
// template line, with the rendered position as its related location.
func TestLintChartPointsAtTemplates(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "chart", "testdata", "app")
	ins, errs := Resolve([]string{dir}, nil, Options{Chart: chart.Options{ReleaseName: "rel", Set: []string{"hostNetwork=true"}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	res, err := engine.Run(context.Background(), ins, lintOpts())
	if err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(dir, "templates", "deployment.yaml")
	var got *rule.Finding
	for i, f := range res.Findings {
		if strings.HasSuffix(f.Path, "hostNetwork") {
			got = &res.Findings[i]
			break
		}
	}
	if got == nil {
		t.Fatalf("no hostNetwork finding among %v", res.Findings)
	}
	want := rule.Finding{File: tmpl, Line: 18, Column: 7, Related: []rule.Location{{File: tmpl + " (rendered)", Line: 20, Column: 7, Message: "rendered"}}}
	if diff := cmp.Diff(want, rule.Finding{File: got.File, Line: got.Line, Column: got.Column, Related: got.Related}); diff != "" {
		t.Errorf("hostNetwork finding (-want +got):\n%s", diff)
	}
}

// TestResolveKinds: each argument is read by what it is, in order.
func TestResolveKinds(t *testing.T) {
	t.Parallel()
	tests := []struct{ arg, kind string }{
		{"-", KindFiles},
		{"../chart/testdata/app", KindChart},
		{"../kustomize/testdata/overlay", KindKustomization},
		{"../cloudprofile/testdata/main.tf", KindNodePools},
		{"../cloudprofile/testdata/eks.yaml", KindNodePools},
		{"../cloudprofile/testdata/karpenter.yaml", KindFiles},
		{"../rules/testdata", KindFiles},
	}
	var got, want []string
	for _, tt := range tests {
		got = append(got, tt.arg+": "+Kind(tt.arg))
		want = append(want, tt.arg+": "+tt.kind)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

// TestNodePoolProblemsAreInputErrors: lint of a Terraform file reports its
// problems at their lines.
func TestNodePoolProblemsAreInputErrors(t *testing.T) {
	t.Parallel()
	_, errs := Resolve([]string{"../cloudprofile/testdata/main.tf"}, nil, Options{Minor: 36})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error()[:strings.Index(e.Error(), ": ")])
	}
	want := []string{"../cloudprofile/testdata/main.tf:5", "../cloudprofile/testdata/main.tf:22"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, errs)
	}
}

// TestResolveFolderOfCharts: a folder holding charts and kustomizations
// renders and builds them instead of reading their files raw.
func TestResolveFolderOfCharts(t *testing.T) {
	t.Parallel()
	ins, errs := Resolve([]string{"../kustomize/testdata"}, nil, Options{})
	var names []string
	for _, in := range ins {
		names = append(names, filepath.ToSlash(in.Name))
	}
	want := []string{
		"../kustomize/testdata/base (kustomize build)",
		"../kustomize/testdata/overlay (kustomize build)",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	var failed []string
	for _, e := range errs {
		failed = append(failed, filepath.ToSlash(e.File))
	}
	wantErrs := []string{
		"../kustomize/testdata/cycle/a/kustomization.yaml",
		"../kustomize/testdata/cycle/b/kustomization.yaml",
		"../kustomize/testdata/missing/kustomization.yaml",
	}
	if diff := cmp.Diff(wantErrs, failed); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestProjectChartLintsClean: winkube lint charts/winkube-webhook, the
// project's own chart, renders and has no finding against the reference
// cluster.
func TestProjectChartLintsClean(t *testing.T) {
	t.Parallel()
	ins, errs := Resolve([]string{filepath.Join("..", "..", "charts", "winkube-webhook")}, nil, Options{Chart: chart.Options{KubeVersion: "1.36"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	res, err := engine.Run(context.Background(), ins, lintOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects < 6 || len(res.Findings) > 0 {
		t.Errorf("%d objects, findings %v; want the chart's objects and no finding", res.Objects, res.Findings)
	}
}

// TestLintChartWindowsTemplateNotRendered: lint through Resolve, as every
// front-end reads a chart: the Windows template its defaults leave out is
// a finding of windows-template-not-rendered at its guard, and with the
// value on its objects are checked instead.
func TestLintChartWindowsTemplateNotRendered(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "chart", "testdata", "mirror-newrelic")
	tmpl := filepath.Join(dir, "templates", "kubelet", "daemonset-windows.yaml")
	for _, tt := range []struct {
		set  []string
		want []string
	}{
		{nil, []string{"windows-template-not-rendered " + tmpl + ":1"}},
		{[]string{"enableWindows=true"}, []string{"windows-build-unsupported " + tmpl + ":26"}},
	} {
		ins, errs := Resolve([]string{dir}, nil, Options{Chart: chart.Options{Set: tt.set}})
		res, err := engine.RunResolved(context.Background(), ins, errs, lintOpts())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			if f.Rule == "windows-template-not-rendered" || f.Rule == "windows-build-unsupported" {
				got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.File, f.Line))
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("--set %v: findings (-want +got):\n%s", tt.set, diff)
		}
	}
}
