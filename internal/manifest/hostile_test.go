package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Inputs that could hang or exhaust the loader (issue 8, item 3).

func TestFIFOInFolderIsAnErrorNotARead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, errs := Inputs([]string{dir}, nil)
	if len(errs) > 0 || len(ins) != 2 {
		t.Fatalf("Inputs = %v, %v", ins, errs)
	}
	done := make(chan struct{})
	var objs []*Object
	go func() {
		objs, errs = ReadAll(ins)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a speed bound
		t.Fatal("reading a folder with a FIFO hung")
	}
	if len(objs) != 1 || len(errs) != 1 || !errors.Is(errs[0], ErrNotRegular) || !strings.Contains(errs[0].Error(), "b.yaml") {
		t.Fatalf("objects %d, errors %v; want 1 object and a not-a-regular-file error naming b.yaml", len(objs), errs)
	}
}

func TestDeviceArgumentIsRefused(t *testing.T) {
	t.Parallel()
	ins, errs := Inputs([]string{"/dev/zero"}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, lerrs := ReadAll(ins)
	if len(lerrs) != 1 || !errors.Is(lerrs[0], ErrNotRegular) {
		t.Fatalf("errors %v, want one ErrNotRegular", lerrs)
	}
}

// TestReadsAreBounded reads an endless stream (what /dev/zero or a stdin
// that never ends gives) through Limit: it stops at the limit.
func TestReadsAreBounded(t *testing.T) {
	old := maxInput
	maxInput = 1 << 20
	t.Cleanup(func() { maxInput = old })
	for _, src := range []struct {
		name string
		r    io.Reader
	}{{"zeros", zeros{}}, {"endless yaml", &endless{}}} {
		err := Each(Input{Name: src.name, open: func() (io.ReadCloser, error) { return io.NopCloser(src.r), nil }}, func(Document) {})
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: Each = %v, want ErrTooLarge", src.name, err)
		}
	}
	if _, err := ReadAllLimited(context.Background(), "stdin", zeros{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAllLimited = %v, want ErrTooLarge", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	s := fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", e.n)
	e.n++
	return copy(p, s), nil
}

// TestContextReaderStopsABlockedRead: a read that never returns (an open
// terminal) ends when the context does.
func TestContextReaderStopsABlockedRead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	go func() { time.Sleep(10 * time.Millisecond); cancel(stop) }()
	if _, err := ReadAllLimited(ctx, "stdin", pr); !errors.Is(err, stop) {
		t.Fatalf("ReadAllLimited = %v, want the context's cause", err)
	}
}

func TestNestedListsAreFlattened(t *testing.T) {
	t.Parallel()
	text := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: inner}
    spec: {containers: [{name: c, image: x}]}
  - apiVersion: v1
    kind: PodList
    items:
    - apiVersion: v1
      kind: Pod
      metadata: {name: deepest}
- apiVersion: v1
  kind: Secret
  metadata: {name: s}
`
	objs, errs := load(t, "l.yaml", text)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, o := range objs {
		got = append(got, fmt.Sprintf("%d:%s/%s", o.Item, o.Kind, o.Name))
	}
	want := "0:ConfigMap/a 1:Pod/inner 2:Pod/deepest 3:Secret/s"
	if strings.Join(got, " ") != want {
		t.Fatalf("objects %v, want %s", got, want)
	}
	if _, ok := objs[1].Typed.(interface{ GetName() string }); !ok {
		t.Errorf("nested Pod not decoded: %T", objs[1].Typed)
	}
}

func TestLargeListLoads(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	const n = 30000
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%d\n    labels: {app: a, tier: t}\n  spec:\n    containers:\n    - name: c\n      image: nginx:1.27\n      ports: [{containerPort: 80}]\n", i)
	}
	for _, src := range []string{b.String(), strings.Replace(b.String(), "apiVersion: v1\nkind: List", "apiVersion: v1\nkind: &k List", 1)} { // the anchor sends it to yaml.v3
		objs, errs := load(t, "big.yaml", src)
		if len(errs) > 0 || len(objs) != n {
			t.Fatalf("%d objects, errors %v; want %d objects", len(objs), errs[:min(len(errs), 3)], n)
		}
	}
}

func TestDocumentOffsets(t *testing.T) {
	t.Parallel()
	text := "a: 1\r\n--- {b: 2}\rc: 3\n...\nd: é\n---\n"
	docs, err := Split("f.yaml", []byte(text), false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%d:%q", d.Index, text[d.Start:d.End]))
	}
	want := `0:"a: 1\r\n" 1:"--- {b: 2}\rc: 3\n" 2:"d: é\n"`
	if strings.Join(got, " ") != want {
		t.Fatalf("ranges %s, want %s", strings.Join(got, " "), want)
	}
}

// TestBraceRunsAreLinear: a document of 4 MiB of "{{" (no "}}", or a "}}"
// only at the end) took the old scanner a quadratic 10^12 steps; the time
// limit here only tells a hang from an answer.
func TestBraceRunsAreLinear(t *testing.T) {
	t.Parallel()
	run := strings.Repeat("{{", 2<<20)
	for _, text := range []string{"a: " + run + "\n", "a: " + run + " .Values.x }}\n", "a: " + run + "}}\n"} {
		done := make(chan []*Error, 1)
		go func() {
			_, errs := Decode(Document{File: "t.yaml", Line: 1, Data: []byte(text)})
			done <- errs
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("Decode did not finish on a run of {{")
		}
	}
	e := helmTemplate(Document{File: "t.yaml", Line: 1, Data: []byte("a: {{ x }}\nb: {{{{ .Values.y }}\n")})
	if e == nil || e.Line != 2 || e.Column != 4 {
		t.Errorf("helmTemplate = %v, want the action at 2:4", e)
	}
}

// TestEachContextStopsAFile: a signal ends the reading of a large file
// between two reads, not after the last document.
func TestEachContextStopsAFile(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	n := 0
	in := Input{Name: "endless", open: func() (io.ReadCloser, error) { return io.NopCloser(&endless{}), nil }}
	err := EachContext(ctx, in, func(Document) {
		if n++; n == 10 {
			cancel(stop)
		}
	})
	if !errors.Is(err, stop) {
		t.Fatalf("EachContext = %v after %d documents, want the context's cause", err, n)
	}
}
