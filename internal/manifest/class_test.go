package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorClasses: every kind of input problem carries its class, so
// front-ends branch with errors.Is rather than on the wording.
func TestErrorClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		class      error
	}{
		{"syntax", "a: [\n", ErrSyntax},
		{"tab", "a:\n\tb: 1\n", ErrSyntax},
		{"duplicate key", "apiVersion: v1\nkind: Pod\nkind: Pod\n", ErrSyntax},
		{"template", "apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Values.name }}}\n", ErrTemplate},
		{"placeholder", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: <image-name>}]}\n", ErrPlaceholder},
		{"not an object", "- a\n- b\n", ErrNotObject},
		{"no kind", "replicaCount: 2\n", ErrNotObject},
		{"wrong type", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: \"x\"}\n", ErrType},
		{"binary", "a: 1\x00\n", ErrBinary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, errs := ReadAll([]Input{BytesInput(tt.name+".yaml", []byte(tt.text))})
			if len(errs) == 0 {
				t.Fatalf("no error for %q", tt.text)
			}
			for _, e := range errs {
				if !errors.Is(e, tt.class) {
					t.Errorf("%v: class %v, want %v", e, e.Class, tt.class)
				}
			}
		})
	}
}

func TestReadErrorClass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errs := Inputs([]string{missing, empty}, nil)
	if len(errs) != 2 {
		t.Fatalf("got %d errors, want 2: %v", len(errs), errs)
	}
	for _, e := range errs {
		if !errors.Is(e, ErrRead) {
			t.Errorf("%v: class %v, want ErrRead", e, e.Class)
		}
	}
	if !errors.Is(errs[0], fs.ErrNotExist) {
		t.Errorf("%v does not wrap fs.ErrNotExist", errs[0])
	}
	if !strings.Contains(errs[0].Error(), missing) {
		t.Errorf("%v does not name the file", errs[0])
	}
}

func TestErrorsFlattensJoin(t *testing.T) {
	t.Parallel()
	err := DecodeStrict("c.yaml", []byte("a: 1\nb: 2\n"), &struct {
		C int `json:"c"`
	}{})
	es := Errors("c.yaml", err)
	if len(es) != 2 {
		t.Fatalf("got %d errors, want 2: %v", len(es), err)
	}
	for _, e := range es {
		if !errors.Is(e, ErrType) || e.Line == 0 || e.Column == 0 {
			t.Errorf("%v: want an ErrType at line:col", e)
		}
	}
	other := Errors("x.yaml", errors.New("boom"))
	if len(other) != 1 || !errors.Is(other[0], ErrRead) || other[0].File != "x.yaml" {
		t.Errorf("Errors of a plain error: %v", other)
	}
}
