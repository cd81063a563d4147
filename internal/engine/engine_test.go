package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Test rules: each reports what it saw, so the tests can check what the
// engine handed it and where the finding was placed.
var (
	loadError = &rule.Rule{ID: engine.LoadErrorID, Severity: rule.Error}

	// images reports every container's image, at the image.
	images = &rule.Rule{ID: "images", Severity: rule.Warning, Workload: func(p *rule.Pass) {
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, path *field.Path) {
			p.Reportf(path.Child("image"), "image %s", c.Image)
		})
	}}

	// facts reports the targeting facts, at the pod spec.
	facts = &rule.Rule{ID: "facts", Severity: rule.Info, Workload: func(p *rule.Pass) {
		rc := "none"
		if p.Target.RuntimeClass != nil {
			rc = p.Target.RuntimeClass.Handler
		}
		p.Reportf(p.Workload.SpecPath, "os=%s by=%s pinned=%v runtimeClass=%s tolerations=%d", p.Target.OS, p.Target.By, p.Target.Pinned, rc, len(p.Target.Tolerations))
	}}

	// ports reports every Service port, an Object rule.
	ports = &rule.Rule{ID: "ports", Severity: rule.Info, Kinds: []string{"Service"}, Object: func(p *rule.Pass) {
		for i, sp := range p.Object.Typed.(*corev1.Service).Spec.Ports {
			p.Reportf(field.NewPath("spec", "ports").Index(i), "port %d", sp.Port)
		}
	}}

	// backends reports, for every Service, how many workloads it saw.
	backends = &rule.Rule{ID: "backends", Severity: rule.Info, Corpus: func(p *rule.CorpusPass) {
		for _, s := range p.Services {
			p.Report(s, rule.Finding{Path: "spec.selector", Message: fmt.Sprintf("%d workloads", len(p.Workloads))})
		}
	}}
)

// seen is what a test compares of a finding.
type seen struct {
	Rule, File   string
	Line, Column int
	Message      string
	Suppressed   bool
}

func run(t *testing.T, workers int, rules []*rule.Rule, paths ...string) []seen {
	t.Helper()
	ins, errs := manifest.Inputs(paths, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(t.Context(), ins, engine.Options{Rules: rules, Workers: workers, Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]seen, 0, len(res.Findings))
	for _, f := range res.Findings {
		out = append(out, seen{f.Rule, filepath.Base(f.File), f.Line, f.Column, f.Message, f.Suppressed})
	}
	return out
}

// write creates the files (name -> content) in a new folder.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pod(name, image string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  labels: {app: %s}\nspec:\n  containers:\n  - name: app\n    image: %s\n", name, name, image)
}

func svc(name string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  selector: {app: %s}\n  ports:\n  - port: 80\n  - port: 443\n", name, name)
}

// streamInput is four files of twelve documents each: Windows and Linux
// pods, Services, and documents that fail to load.
func streamInput(t *testing.T) string {
	files := map[string]string{}
	for f := range 4 {
		var docs []string
		for d := range 12 {
			name := fmt.Sprintf("f%dd%d", f, d)
			switch d % 4 {
			case 0:
				docs = append(docs, pod(name, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
			case 1:
				docs = append(docs, svc(name))
			case 2:
				docs = append(docs, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: "+name+"\nspec:\n\tcontainers: []\n")
			default:
				docs = append(docs, pod(name, "nginx:1.27"))
			}
		}
		files[fmt.Sprintf("%02d.yaml", f)] = strings.Join(docs, "---\n")
	}
	return write(t, files)
}

func TestStreamOrderIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := streamInput(t)
	rules := []*rule.Rule{loadError, images, ports, backends}
	want := run(t, 1, rules, dir)
	// Per file: 3 Windows pods and 3 Linux pods (1 image each), 3
	// Services (2 ports and 1 backends each), 3 load errors.
	if n := 4 * (3 + 3 + 3*3 + 3); len(want) != n {
		t.Fatalf("got %d findings with one worker, want %d:\n%v", len(want), n, want)
	}
	for i := range 5 {
		if diff := cmp.Diff(want, run(t, 4, rules, dir)); diff != "" {
			t.Fatalf("run %d with 4 workers differs from 1 worker (-1 +4):\n%s", i, diff)
		}
	}
	// The order is the input's: files in lexical order, then lines.
	sorted := sort.SliceIsSorted(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
	})
	if !sorted {
		t.Errorf("findings are not in input order: %v", want)
	}
}

// Corpus findings run after the input is read; they must still land in
// input order, not ahead of the files before theirs.
func TestCorpusFindingsKeepInputOrder(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"a.yaml": pod("a", "nginx:1.27"), "b.yaml": svc("b")})
	got := run(t, 1, []*rule.Rule{images, backends}, dir)
	want := []seen{
		{Rule: "images", File: "a.yaml", Line: 9, Column: 5, Message: "image nginx:1.27"},
		{Rule: "backends", File: "b.yaml", Line: 6, Column: 3, Message: "1 workloads"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestRuntimeClassFromLaterFile(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{
		"1-app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      runtimeClassName: windows-2022
      containers:
      - name: app
        image: myregistry/app:1.0
`,
		"2-classes.yaml": `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: windows-2022
handler: runhcs-wcow-process
scheduling:
  nodeSelector:
    kubernetes.io/os: windows
    node.kubernetes.io/windows-build: "10.0.20348"
  tolerations:
  - {key: os, operator: Equal, value: windows, effect: NoSchedule}
`,
	})
	for _, workers := range []int{1, 4} {
		got := run(t, workers, []*rule.Rule{facts}, dir)
		want := []seen{{Rule: "facts", File: "1-app.yaml", Line: 11, Column: 5,
			Message: "os=windows by=RuntimeClass pinned=true runtimeClass=runhcs-wcow-process tolerations=1"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d workers (-want +got):\n%s", workers, diff)
		}
	}
}

// TestDuplicateRuntimeClassIsDeterministic: two classes of one name in
// unrelated files give the same findings at any parallelism, from the
// first class in input order.
func TestDuplicateRuntimeClassIsDeterministic(t *testing.T) {
	t.Parallel()
	class := func(handler string) string {
		return "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: win\nhandler: " + handler + "\n" +
			"scheduling:\n  nodeSelector: {kubernetes.io/os: windows}\n"
	}
	files := map[string]string{"0-first.yaml": class("runhcs-wcow-process")}
	for i := 1; i <= 40; i++ {
		files[fmt.Sprintf("%02d-app.yaml", i)] = fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: app-%d}
spec:
  runtimeClassName: win
  containers:
  - {name: app, image: myregistry/app:1.0}
`, i)
	}
	files["99-second.yaml"] = class("runhcs-wcow-hypervisor")
	dir := write(t, files)
	want := run(t, 1, []*rule.Rule{facts}, dir)
	if len(want) != 40 || !strings.Contains(want[0].Message, "runtimeClass=runhcs-wcow-process") {
		t.Fatalf("one worker: %d findings, first %+v; want 40 from the first class", len(want), want)
	}
	for range 20 {
		if diff := cmp.Diff(want, run(t, 4, []*rule.Rule{facts}, dir)); diff != "" {
			t.Fatalf("4 workers differ from one (-one +four):\n%s", diff)
		}
	}
}

func TestIgnoreAnnotation(t *testing.T) {
	t.Parallel()
	deployment := func(name, meta, tmpl string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  annotations: {%s}
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
      annotations: {%s}
    spec:
      containers:
      - name: app
        image: nginx:1.27
`, name, meta, tmpl)
	}
	cases := []struct {
		name, meta, tmpl string
		images, facts    bool // suppressed
	}{
		{"none", "", "", false, false},
		{"workload", `winkube.io/ignore: images`, "", true, false},
		{"template", "", `winkube.io/ignore: "facts, images"`, true, true},
		{"all", `winkube.io/ignore: all`, "", true, true},
		{"other-rule", `winkube.io/ignore: missing-os-pin`, "", false, false},
		{"other-key", `example.com/ignore: images`, "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := write(t, map[string]string{"d.yaml": deployment(c.name, c.meta, c.tmpl)})
			got := run(t, 1, []*rule.Rule{images, facts}, dir)
			want := []seen{
				{Rule: "facts", File: "d.yaml", Line: 13, Column: 5, Message: "os=linux by=image pinned=false runtimeClass=none tolerations=0", Suppressed: c.facts},
				{Rule: "images", File: "d.yaml", Line: 16, Column: 9, Message: "image nginx:1.27", Suppressed: c.images},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrorDoesNotStopOthers(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"m.yaml": pod("one", "nginx:1.27") + "---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\n  name: again\nspec: {}\n" + "---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: typed}\nspec:\n  containers: 5\n" + "---\n" +
		pod("two", "nginx:1.28")})
	got := run(t, 2, []*rule.Rule{loadError, images}, dir)
	// Lines: pod one 1-9, the duplicate key 11-16, the mistyped pod
	// 18-22, pod two 24-32.
	want := []seen{
		{Rule: "images", File: "m.yaml", Line: 9, Column: 5, Message: "image nginx:1.27"},
		{Rule: engine.LoadErrorID, File: "m.yaml", Line: 15, Column: 3, Message: `mapping key "name" already defined at line 14`},
		{Rule: engine.LoadErrorID, File: "m.yaml", Line: 22, Column: 15, Message: "spec.containers: expected a list, got number"},
		{Rule: "images", File: "m.yaml", Line: 32, Column: 5, Message: "image nginx:1.28"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestListItems(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"list.yaml": `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec:
    containers:
    - name: a
      image: nginx:1.27
- apiVersion: v1
  kind: Service
  metadata: {name: s}
  spec:
    ports:
    - port: 8080
- apiVersion: v1
  kind: Pod
  metadata: {name: b}
  spec:
    containers:
    - name: b
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`})
	got := run(t, 1, []*rule.Rule{images, ports}, dir)
	want := []seen{
		{Rule: "images", File: "list.yaml", Line: 10, Column: 7, Message: "image nginx:1.27"},
		{Rule: "ports", File: "list.yaml", Line: 16, Column: 7, Message: "port 8080"},
		{Rule: "images", File: "list.yaml", Line: 23, Column: 7, Message: "image mcr.microsoft.com/windows/nanoserver:ltsc2022"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestJSONInput(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"pod.json": `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "p"},
  "spec": {
    "containers": [
      {"name": "a", "image": "nginx:1.27"},
      {
        "name": "b",
        "image": "mcr.microsoft.com/windows/nanoserver:ltsc2022"
      }
    ]
  }
}
`, "list.json": `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
   "spec": {"ports": [{"port": 80}]}}
]}
`})
	got := run(t, 1, []*rule.Rule{loadError, images, ports}, dir)
	want := []seen{
		{Rule: "ports", File: "list.json", Line: 3, Column: 23, Message: "port 80"},
		{Rule: "images", File: "pod.json", Line: 7, Column: 21, Message: "image nginx:1.27"},
		{Rule: "images", File: "pod.json", Line: 10, Column: 9, Message: "image mcr.microsoft.com/windows/nanoserver:ltsc2022"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Run stops at a cancelled context with its error.
func TestRunCancelled(t *testing.T) {
	t.Parallel()
	dir := streamInput(t)
	ins, _ := manifest.Inputs([]string{dir}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := engine.Run(ctx, ins, engine.Options{Rules: []*rule.Rule{images}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context returned %v, want context.Canceled", err)
	}
}

func TestIgnoreAnnotationOnService(t *testing.T) {
	t.Parallel()
	annotated := strings.Replace(svc("b"), "  name: b\n", "  name: b\n  annotations: {winkube.io/ignore: \"backends\"}\n", 1)
	dir := write(t, map[string]string{"a.yaml": annotated, "c.yaml": svc("c")})
	got := run(t, 2, []*rule.Rule{backends, ports}, dir)
	want := []seen{
		{Rule: "backends", File: "a.yaml", Line: 7, Column: 3, Message: "0 workloads", Suppressed: true},
		{Rule: "ports", File: "a.yaml", Line: 9, Column: 5, Message: "port 80"},
		{Rule: "ports", File: "a.yaml", Line: 10, Column: 5, Message: "port 443"},
		{Rule: "backends", File: "c.yaml", Line: 6, Column: 3, Message: "0 workloads"},
		{Rule: "ports", File: "c.yaml", Line: 8, Column: 5, Message: "port 80"},
		{Rule: "ports", File: "c.yaml", Line: 9, Column: 5, Message: "port 443"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
