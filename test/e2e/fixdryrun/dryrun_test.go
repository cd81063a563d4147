package fixdryrun_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/controlplane"
)

// corpusDir is the real-world corpus kept in internal/corpus's testdata.
var corpusDir = filepath.Join("..", "..", "..", "internal", "corpus", "testdata", "real")

// TestFixOnAPIServer runs `winkube fix --unsafe --write` over examples/ and
// the Windows manifests of the real corpus, and checks the result with lint
// and with a real kube-apiserver v1.36.3 (server-side dry run): the fix
// changes only the documents it fixes, is idempotent, silences the rules it
// fixes, never turns an accepted object into a rejected one, and removes
// the rejections it targets.
func TestFixOnAPIServer(t *testing.T) {
	dir := t.TempDir()
	files := stage(t, dir)
	before := readAll(t, files)

	plan := planFixes(t, files, before)
	// fix exits 2 when an edit cannot be made (planFixes logged which).
	want := cli.ExitClean
	if plan.failed > 0 {
		want = cli.ExitError
	}
	if code, stderr := winkube(t, "fix", "--unsafe", "--write", dir); code != want {
		t.Errorf("winkube fix exited %d, want %d:\n%s", code, want, stderr)
	}
	after := readAll(t, files)
	for _, f := range files {
		if !bytes.Equal(after[f], plan.out[f]) {
			t.Errorf("%s: winkube fix wrote other text than the library's lint, plan and apply:\n%s", f, diff(f, plan.out[f], after[f]))
		}
	}

	checkUntouchedIdentical(t, files, before, after, plan)
	checkIdempotent(t, dir, files, after)
	checkLintSilenced(t, files, plan)

	cp := controlplane.StartT(t, controlplane.Options{NoScheduler: true})
	srv := newDryRunner(t, cp)
	srv.prepare(t, files, before)
	stats := map[string]int{}
	for _, f := range files {
		compareDryRuns(t, srv, f, before[f], after[f], plan, stats)
	}
	t.Logf("%d files, %d edits in %d documents, %d edits fix cannot make; server-side dry run: %v",
		len(files), plan.changed, len(plan.docs), plan.failed, stats)
	if stats[accepted] == 0 {
		t.Error("no fixed object was accepted by the API server; is the comparison working?")
	}
}

// stage copies examples/ and the Windows files of the corpus (SOURCES.tsv
// column windows == yes) into dir and returns their paths there.
func stage(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	copyFile := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, dst)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "..", "examples", "*.yaml"))
	if len(examples) == 0 {
		t.Fatal("no examples/*.yaml")
	}
	for _, e := range examples {
		copyFile(e, filepath.Join(dir, "examples", filepath.Base(e)))
	}
	tsv, err := os.Open(filepath.Join(corpusDir, "SOURCES.tsv"))
	if err != nil {
		t.Fatalf("the real corpus is missing (want internal/corpus/testdata/real): %v", err)
	}
	defer tsv.Close()
	sc := bufio.NewScanner(tsv)
	var header []string
	windows := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if header == nil {
			header = cols
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			if i < len(cols) {
				row[h] = cols[i]
			}
		}
		if row["windows"] == "yes" {
			copyFile(filepath.Join(corpusDir, row["file"]), filepath.Join(dir, "corpus", row["file"]))
			windows++
		}
	}
	if windows < 50 {
		t.Fatalf("SOURCES.tsv lists %d Windows files; the corpus looks incomplete", windows)
	}
	return files
}

func readAll(t *testing.T, files []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	return out
}

// winkube runs the CLI in-process and returns its exit code and stderr.
func winkube(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(t.Context(), args, cli.Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	return code, stderr.String()
}

// docKey names a document of a file, or one item of a List document.
type docKey struct {
	file      string
	doc, item int
}

// plan is what the library says `winkube fix --unsafe` does.
type plan struct {
	out     map[string][]byte          // fixed text per file
	docs    map[docKey]bool            // documents (item -1) an edit changed
	paths   map[docKey][]string        // field paths an edit changed, per object
	rules   map[docKey]map[string]bool // rules whose edits changed the object
	changed int                        // edits that changed something
	failed  int                        // problems fix reports (edits it cannot make, documents it cannot read)
}

func lintOptions() engine.Options {
	return engine.Options{Rules: rules.Suite(), Cluster: cluster.Assumed(), Model: winsupport.Default()} // the CLI default: no profile given
}

// planFixes does what `winkube fix --unsafe` does, with the library's
// fix.Converge (lint, plan and apply until nothing changes), and records
// every edit that changed something.
func planFixes(t *testing.T, files []string, before map[string][]byte) *plan {
	t.Helper()
	p := &plan{out: map[string][]byte{}, docs: map[docKey]bool{}, paths: map[docKey][]string{}, rules: map[docKey]map[string]bool{}}
	in := make([]fix.File, len(files))
	for i, f := range files {
		in[i] = fix.File{Name: f, Data: before[f]}
	}
	res, err := fix.Converge(t.Context(), in, lintOptions(), fix.Policy{Unsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range res.Files {
		p.out[fr.Name] = fr.After
		for _, a := range fr.Applied {
			p.record(fr.Name, a)
		}
		for _, f := range fr.Failures {
			t.Logf("%s: %s", fr.Name, f)
			p.failed++
		}
	}
	if p.changed == 0 {
		t.Fatal("fix changed nothing; the inputs should need fixes")
	}
	return p
}

func (p *plan) record(file string, a fix.Applied) {
	if a.Err != nil || !a.Changed {
		return
	}
	k := docKey{file, a.Doc, a.Item}
	p.changed++
	p.docs[docKey{file, a.Doc, -1}] = true
	p.paths[k] = append(p.paths[k], a.Path)
	if p.rules[k] == nil {
		p.rules[k] = map[string]bool{}
	}
	p.rules[k][a.Rule] = true
}

// split returns the documents of a file's text.
func split(t *testing.T, name string, data []byte) []manifest.Document {
	t.Helper()
	s := manifest.NewSplitter(name, bytes.NewReader(data), strings.HasSuffix(name, ".json"))
	var docs []manifest.Document
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, d)
	}
}

func checkUntouchedIdentical(t *testing.T, files []string, before, after map[string][]byte, p *plan) {
	t.Helper()
	for _, f := range files {
		b, a := split(t, f, before[f]), split(t, f, after[f])
		if len(b) != len(a) {
			t.Errorf("%s: %d documents before the fix, %d after", f, len(b), len(a))
			continue
		}
		for i := range b {
			if !p.docs[docKey{f, i, -1}] && !bytes.Equal(b[i].Data, a[i].Data) {
				t.Errorf("%s: document %d (line %d) had no fix but changed:\n%s", f, i, b[i].Line, diff(f, b[i].Data, a[i].Data))
			}
		}
	}
}

func diff(name string, a, b []byte) string {
	return name + " (-before +after):\n" + cmp.Diff(strings.Split(string(a), "\n"), strings.Split(string(b), "\n"))
}

func checkIdempotent(t *testing.T, dir string, files []string, after map[string][]byte) {
	t.Helper()
	_, stderr := winkube(t, "fix", "--unsafe", "--write", dir)
	if !strings.Contains(stderr, "\n0 fixes applied to 0 of ") && !strings.HasPrefix(stderr, "0 fixes applied to 0 of ") {
		t.Errorf("second winkube fix: want 0 fixes applied; stderr:\n%s", stderr)
	}
	again := readAll(t, files)
	for _, f := range files {
		if !bytes.Equal(again[f], after[f]) {
			t.Errorf("%s: the second winkube fix changed it:\n%s", f, diff(f, after[f], again[f]))
		}
	}
}

// checkLintSilenced: lint over the fixed files reports none of the rules
// whose fixes were applied, on the objects they were applied to.
func checkLintSilenced(t *testing.T, files []string, p *plan) {
	t.Helper()
	ins, errs := manifest.Inputs(files, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(t.Context(), ins, lintOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Object != nil && p.rules[docKey{f.Object.File, f.Object.Doc, f.Object.Item}][f.Rule] {
			t.Errorf("%s:%d:%d: after the fix lint still reports %s: %s", f.File, f.Line, f.Column, f.Rule, f.Message)
		}
	}
}

// dryRunner creates objects with dryRun=All through the dynamic client.
type dryRunner struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func newDryRunner(t *testing.T, cp *controlplane.ControlPlane) *dryRunner {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &dryRunner{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cp.Client.Discovery()))}
}

// prepare really creates what the objects need to exist first: their
// namespaces, and the RuntimeClasses and PriorityClasses of the input.
func (d *dryRunner) prepare(t *testing.T, files []string, texts map[string][]byte) {
	t.Helper()
	namespaces := map[string]bool{}
	var prereqs []*unstructured.Unstructured
	for _, f := range files {
		for _, doc := range split(t, f, texts[f]) {
			objs, _ := objectsOf(doc)
			for _, u := range objs {
				if ns := u.GetNamespace(); ns != "" {
					namespaces[ns] = true
				}
				switch u.GetKind() {
				case "Namespace":
					namespaces[u.GetName()] = true
				case "RuntimeClass", "PriorityClass":
					prereqs = append(prereqs, u)
				}
			}
		}
	}
	for ns := range namespaces {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		prereqs = append(prereqs, u)
	}
	for _, u := range prereqs {
		if err := d.create(t.Context(), u, false); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Logf("creating prerequisite %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// create creates u (a copy), in "default" when it is namespaced and names
// no namespace.
func (d *dryRunner) create(ctx context.Context, u *unstructured.Unstructured, dryRun bool) error {
	gvk := u.GroupVersionKind()
	m, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	u = u.DeepCopy()
	var ri dynamic.ResourceInterface = d.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
		ri = d.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	_, err = ri.Create(ctx, u, opts)
	return err
}

// objectsOf decodes a document as kubectl does: one object, or the items
// of a List (isList). Documents that do not decode give none.
func objectsOf(doc manifest.Document) (objs []*unstructured.Unstructured, isList bool) {
	var m map[string]any
	if err := yaml.Unmarshal(doc.Data, &m); err != nil || m == nil {
		return nil, false
	}
	u := &unstructured.Unstructured{Object: m}
	if !u.IsList() {
		return []*unstructured.Unstructured{u}, false
	}
	list, err := u.ToList()
	if err != nil {
		return nil, true
	}
	for i := range list.Items {
		objs = append(objs, &list.Items[i])
	}
	return objs, true
}

// compareDryRuns dry-runs every object a fix changed, before and after.
func compareDryRuns(t *testing.T, d *dryRunner, file string, before, after []byte, p *plan, stats map[string]int) {
	t.Helper()
	b, a := split(t, file, before), split(t, file, after)
	for i := range min(len(b), len(a)) {
		if !p.docs[docKey{file, i, -1}] {
			continue
		}
		bo, list := objectsOf(b[i])
		ao, _ := objectsOf(a[i])
		if len(bo) != len(ao) || len(bo) == 0 {
			t.Errorf("%s: document %d: %d objects before the fix, %d after", file, i, len(bo), len(ao))
			continue
		}
		for j := range bo {
			k := docKey{file, i, -1}
			if list {
				k.item = j
			}
			if len(p.paths[k]) == 0 {
				continue
			}
			ref := fmt.Sprintf("%s:%d: %s %s", file, b[i].Line, bo[j].GetKind(), bo[j].GetName())
			errBefore := d.create(t.Context(), bo[j], true)
			errAfter := d.create(t.Context(), ao[j], true)
			if meta.IsNoMatchError(errBefore) {
				t.Logf("%s: not checked, the API server does not know %s", ref, bo[j].GetAPIVersion())
				stats["kind unknown to the API server"]++
				continue
			}
			outcome, problems := verdict(errBefore, errAfter, p.paths[k])
			for _, msg := range problems {
				t.Errorf("%s: %s", ref, msg)
			}
			switch {
			case outcome == unrelated:
				t.Logf("%s: %s: %v", ref, outcome, errAfter)
			case outcome == accepted && errBefore != nil:
				t.Logf("%s: the fix turned a rejection into acceptance: %v", ref, errBefore)
			}
			stats[outcome]++
		}
	}
}

// Outcomes of verdict.
const (
	accepted  = "accepted after fix"
	unrelated = "rejected before and after, for reasons the fix does not target"
	broken    = "REJECTED because of the fix"
)

// verdict compares the API server's answers for an object before and after
// its fix, whose edits changed the given field paths: the outcome, and
// what is wrong with the fix.
func verdict(before, after error, edited []string) (outcome string, problems []string) {
	switch {
	case after == nil:
		return accepted, nil
	case before == nil:
		return broken, []string{fmt.Sprintf("the API server accepts the original but rejects the fixed object (edits %v): %v", edited, after)}
	}
	was := causes(before)
	for _, c := range causes(after) {
		if !slices.Contains(was, c) {
			problems = append(problems, fmt.Sprintf("the fix (edits %v) brought a new rejection: %s; before the fix: %v", edited, c, before))
		}
		for _, e := range edited {
			if related(c.field, e) {
				problems = append(problems, fmt.Sprintf("the fix edited %s but the API server still rejects it: %s", e, c))
			}
		}
	}
	if len(problems) > 0 {
		return broken, problems
	}
	return unrelated, nil
}

type cause struct{ field, message string }

func (c cause) String() string { return c.field + ": " + c.message }

// causes lists an error's field causes, or the error itself when it has
// none (an unknown PriorityClass, a missing namespace).
func causes(err error) []cause {
	var status *apierrors.StatusError
	if errors.As(err, &status) && status.ErrStatus.Details != nil && len(status.ErrStatus.Details.Causes) > 0 {
		var out []cause
		for _, c := range status.ErrStatus.Details.Causes {
			out = append(out, cause{c.Field, c.Message})
		}
		return out
	}
	return []cause{{"", err.Error()}}
}

// related reports whether one field path is the other or inside it.
func related(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	inside := func(x, y string) bool {
		return x == y || strings.HasPrefix(x, y+".") || strings.HasPrefix(x, y+"[")
	}
	return inside(a, b) || inside(b, a)
}

// TestVerdict pins the comparison rules with the API server's own error
// shapes.
func TestVerdict(t *testing.T) {
	t.Parallel()
	gk := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	invalid := func(fields ...string) error {
		var errs field.ErrorList
		for _, f := range fields {
			errs = append(errs, field.Forbidden(field.NewPath(f), "cannot be set for a windows pod"))
		}
		return apierrors.NewInvalid(gk, "web", errs)
	}
	const runAsUser = "spec.template.spec.securityContext.runAsUser"
	const hostPID = "spec.template.spec.hostPID"
	priority := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web", errors.New("no PriorityClass with name x was found"))
	tests := []struct {
		name          string
		before, after error
		edited        []string
		want          string
		problems      int
	}{
		{"accepted both times", nil, nil, []string{runAsUser}, accepted, 0},
		{"rejection fixed", invalid(runAsUser), nil, []string{runAsUser}, accepted, 0},
		{"fix breaks an accepted object", nil, invalid(runAsUser), []string{"spec.template.spec.os.name"}, broken, 1},
		{"unrelated rejection stays", priority, priority, []string{runAsUser}, unrelated, 0},
		{"targeted field still rejected", invalid(runAsUser), invalid(runAsUser), []string{runAsUser}, broken, 1},
		{"edit above the rejected field", invalid(runAsUser), invalid(runAsUser), []string{"spec.template.spec.securityContext"}, broken, 1},
		{"other field fixed, one left", invalid(runAsUser, hostPID), invalid(hostPID), []string{runAsUser}, unrelated, 0},
		{"new rejection", invalid(runAsUser), invalid(runAsUser, hostPID), []string{"spec.template.spec.os.name"}, broken, 1},
		{"different error", priority, invalid(hostPID), []string{runAsUser}, broken, 1},
	}
	for _, tt := range tests {
		got, problems := verdict(tt.before, tt.after, tt.edited)
		if got != tt.want || len(problems) != tt.problems {
			t.Errorf("%s: verdict = %q with problems %q; want %q with %d problems", tt.name, got, problems, tt.want, tt.problems)
		}
	}
}
