package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test so that Check's failures can be read.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatalf ends the goroutine that runs Check, as testing's does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	if Update() {
		t.Skip("the comparison is not made with -update")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, got string
		fatal           bool
		want            []string // substrings of the one failure; none when it passes
	}{
		{name: "same", path: path, got: "one\ntwo\nthree\n"},
		{name: "differs", path: path, got: "one\n2\nthree\n", want: []string{path + " is out of date", `"two",`, `"2",`, "run go test ./internal/golden -update"}},
		{name: "missing", path: filepath.Join(dir, "none.golden"), got: "x", fatal: true, want: []string{"none.golden", "go test ./internal/golden -update writes it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Check(r, tc.path, []byte(tc.got))
			}()
			<-done
			if r.fatal != tc.fatal {
				t.Errorf("fatal = %v, want %v", r.fatal, tc.fatal)
			}
			if len(tc.want) == 0 {
				if len(r.errors) > 0 {
					t.Errorf("unexpected failure: %q", r.errors)
				}
				return
			}
			if len(r.errors) != 1 {
				t.Fatalf("got %d failures, want 1: %q", len(r.errors), r.errors)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.errors[0], w) {
					t.Errorf("failure lacks %q:\n%s", w, r.errors[0])
				}
			}
		})
	}
}
