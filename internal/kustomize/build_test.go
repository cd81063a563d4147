package kustomize

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/manifest"
)

// TestBuildFinalNamesAndBasePositions: the overlay's objects carry their
// final names and namespace, in the order of the resources (kustomize's
// default since v5), and a field maps to the base file's line.
func TestBuildFinalNamesAndBasePositions(t *testing.T) {
	t.Parallel()
	ins, errs := Build("testdata/overlay")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(ins) != 1 {
		t.Fatalf("got %d inputs, want 1", len(ins))
	}
	objs, errs := manifest.ReadAll(ins)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var refs []string
	for _, o := range objs {
		refs = append(refs, o.Ref())
	}
	if diff := cmp.Diff([]string{"Deployment/shop/prod-web", "Service/shop/prod-web"}, refs); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	r, _ := ins[0].Open()
	text, _ := io.ReadAll(r)
	line := 0
	for i, l := range strings.Split(string(text), "\n") {
		if strings.TrimSpace(l) == "hostNetwork: true" {
			line = i + 1
		}
	}
	file, l, c, ok := ins[0].Origin(line, "spec.template.spec.hostNetwork")
	if diff := cmp.Diff([]any{filepath.Join("testdata", "overlay", "..", "base", "deployment.yaml"), 14, 7, true}, []any{file, l, c, ok}); diff != "" {
		t.Errorf("origin of hostNetwork (-want +got):\n%s", diff)
	}
	// The nodeSelector came from the overlay's patch.
	file, l, c, ok = ins[0].Origin(line, "spec.template.spec.nodeSelector[kubernetes.io/os]")
	if diff := cmp.Diff([]any{filepath.Join("testdata", "overlay", "windows.yaml"), 9, 9, true}, []any{file, l, c, ok}); diff != "" {
		t.Errorf("origin of the patched nodeSelector (-want +got):\n%s", diff)
	}
}

func TestBuildErrorsArePositioned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir, file string
		line      int
		msg       string
	}{
		{"testdata/missing", "testdata/missing/kustomization.yaml", 2, "nope"},
		{"testdata/cycle/a", "testdata/cycle/a/kustomization.yaml", 2, "cycle"},
		{"testdata", "testdata", 0, "no kustomization.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			_, errs := Build(tt.dir)
			if len(errs) != 1 {
				t.Fatalf("got %v, want one error", errs)
			}
			e := errs[0]
			if filepath.ToSlash(e.File) != tt.file || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %v, want %s:%d containing %q", e, tt.file, tt.line, tt.msg)
			}
		})
	}
}
