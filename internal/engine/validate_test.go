package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// backwards reports the containers' images last to first, as a rule that
// follows the API server's validation order may report out of line order.
var backwards = &rule.Rule{ID: "backwards", Severity: rule.Error, Workload: func(p *rule.Pass) {
	var paths []*field.Path
	winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(_ *corev1.Container, path *field.Path) {
		paths = append(paths, path.Child("image"))
	})
	for i := len(paths) - 1; i >= 0; i-- {
		p.Reportf(paths[i], "image %d", i)
	}
}}

// TestValidateKeepsEmissionOrder: Validate returns findings in the order
// the rules (in their given order) emit them; Check sorts by position.
func TestValidateKeepsEmissionOrder(t *testing.T) {
	t.Parallel()
	const text = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: a:1}
  - {name: b, image: b:1}
`
	objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput("p.yaml", []byte(text))})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	opts := engine.Options{Rules: []*rule.Rule{backwards, images}, Model: winsupport.Default()}
	got := engine.Validate(objs, opts)
	var msgs []string
	for _, f := range got[0] {
		msgs = append(msgs, f.Message)
	}
	if diff := cmp.Diff([]string{"image 1", "image 0", "image a:1", "image b:1"}, msgs); diff != "" {
		t.Errorf("Validate order (-want +got):\n%s", diff)
	}
	if got[0][0].Line != 7 || got[0][1].Line != 6 {
		t.Errorf("positions: %d, %d; want 7, 6", got[0][0].Line, got[0][1].Line)
	}
	var sorted []string
	for _, f := range engine.Check(objs, opts).Findings {
		sorted = append(sorted, f.Message)
	}
	if diff := cmp.Diff([]string{"image 0", "image a:1", "image 1", "image b:1"}, sorted); diff != "" {
		t.Errorf("Check order (-want +got):\n%s", diff)
	}
}

type pathFinding struct {
	File     string
	Severity rule.Severity
	Message  string
}

// TestPathErrorsAreLoadErrors: a path that cannot be read is a load-error
// finding made by the engine, at load-error's configured severity, and
// none when load-error is disabled.
func TestPathErrorsAreLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	info := *loadError
	info.Severity = rule.Info
	for _, tt := range []struct {
		name  string
		rules []*rule.Rule
		want  []pathFinding
	}{
		{"default", []*rule.Rule{loadError}, []pathFinding{{missing, rule.Error, "cannot read: no such file or directory"}}},
		{"configured severity", []*rule.Rule{&info}, []pathFinding{{missing, rule.Info, "cannot read: no such file or directory"}}},
		{"disabled", []*rule.Rule{images}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := engine.RunPaths(t.Context(), []string{missing}, nil, engine.Options{Rules: tt.rules, Model: winsupport.Default()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Unread) != 1 || res.Unread[0].File != missing {
				t.Errorf("Unread = %v, want %s whatever load-error's configuration", res.Unread, missing)
			}
			var got []pathFinding
			for _, f := range res.Findings {
				if f.Rule != engine.LoadErrorID {
					t.Errorf("unexpected %s finding: %s", f.Rule, f.Message)
				}
				got = append(got, pathFinding{f.File, f.Severity, f.Message})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
