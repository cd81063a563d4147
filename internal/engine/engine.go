package engine

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// IgnoreAnnotation lists rule IDs (or "all") whose findings are suppressed
// for the object; honoured on a workload and on its pod template.
const IgnoreAnnotation = "winkube.io/ignore"

// LoadErrorID is the rule ID of input problems.
const LoadErrorID = "load-error"

// Options configures a run.
type Options struct {
	Rules   []*rule.Rule // enabled rules, severities already applied
	Cluster *cluster.Cluster
	Model   winsupport.Model
	// RuntimeClasses known before the input is read (from a live cluster).
	RuntimeClasses []*nodev1.RuntimeClass
	Workers        int // 0 means GOMAXPROCS
}

// Result is the outcome of a run.
type Result struct {
	Findings []rule.Finding // in input order, then line, column, rule
	Files    int
	Objects  int
}

// Run checks every document of the inputs.
func Run(ctx context.Context, inputs []manifest.Input, opts Options) (*Result, error) {
	r := newRun(opts)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	docs := make(chan job, workers*4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range docs {
				r.document(j)
			}
		}()
	}
	seq := 0
	var err error
	for _, in := range inputs {
		if err = ctx.Err(); err != nil {
			break
		}
		r.files++
		fileSeq := seq
		seq++
		if lerr := manifest.Each(in, func(d manifest.Document) {
			docs <- job{seq: seq, doc: d}
			seq++
		}); lerr != nil {
			r.loadError(fileSeq, lerr)
		}
	}
	close(docs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return r.finish(), nil
}

// Check runs the rules over objects already in memory (the webhook's one
// object, a live cluster's listing).
func Check(objs []*manifest.Object, opts Options) *Result {
	r := newRun(opts)
	for i, o := range objs {
		r.object(i, o)
	}
	return r.finish()
}

type job struct {
	seq int
	doc manifest.Document
}

type run struct {
	opts     Options
	workload []*rule.Rule
	objRules map[string][]*rule.Rule
	corpus   []*rule.Rule
	loadRule *rule.Rule

	mu        sync.Mutex
	files     int
	objects   int
	findings  []seqFinding
	rcs       map[string]*nodev1.RuntimeClass
	deferred  []deferredWorkload
	services  []*manifest.Object
	seqOf     map[*manifest.Object]int // input position of every Service, for Corpus findings
	summaries []rule.Summary
}

type seqFinding struct {
	seq int
	f   rule.Finding
}

type deferredWorkload struct {
	seq int
	obj *manifest.Object
}

func newRun(opts Options) *run {
	if opts.Cluster == nil {
		opts.Cluster = cluster.Reference()
	}
	r := &run{opts: opts, objRules: map[string][]*rule.Rule{}, rcs: map[string]*nodev1.RuntimeClass{}, seqOf: map[*manifest.Object]int{}}
	for _, rc := range opts.RuntimeClasses {
		r.rcs[rc.Name] = rc
	}
	for _, ru := range opts.Rules {
		switch {
		case ru.ID == LoadErrorID:
			r.loadRule = ru
		case ru.Workload != nil:
			r.workload = append(r.workload, ru)
		case ru.Object != nil:
			for _, k := range ru.Kinds {
				r.objRules[k] = append(r.objRules[k], ru)
			}
		case ru.Corpus != nil:
			r.corpus = append(r.corpus, ru)
		}
	}
	return r
}

func (r *run) document(j job) {
	objs, errs := manifest.Decode(j.doc)
	for _, e := range errs {
		r.loadError(j.seq, e)
	}
	for _, o := range objs {
		r.object(j.seq, o)
	}
}

func (r *run) loadError(seq int, e *manifest.Error) {
	if r.loadRule == nil {
		return
	}
	f := rule.Finding{Rule: LoadErrorID, Severity: r.loadRule.Severity, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
	if strings.HasPrefix(e.Msg, "not a Kubernetes object") {
		f.Severity = min(f.Severity, rule.Warning)
	}
	r.mu.Lock()
	r.findings = append(r.findings, seqFinding{seq, f})
	r.mu.Unlock()
}

func (r *run) object(seq int, o *manifest.Object) {
	r.mu.Lock()
	r.objects++
	if rc, ok := o.Typed.(*nodev1.RuntimeClass); ok {
		r.rcs[rc.Name] = rc
	}
	if o.Kind == "Service" && o.Typed != nil {
		r.services = append(r.services, o)
		r.seqOf[o] = seq
	}
	r.mu.Unlock()

	var out []rule.Finding
	emit := func(f rule.Finding) { out = append(out, f) }
	for _, ru := range r.objRules[o.Kind] {
		if o.Typed == nil {
			continue
		}
		ru.Object(&rule.Pass{Rule: ru, Object: o, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit})
	}
	if w := o.Workload(); w != nil {
		if w.Spec.RuntimeClassName != nil && *w.Spec.RuntimeClassName != "" && r.runtimeClass(*w.Spec.RuntimeClassName) == nil {
			r.mu.Lock()
			r.deferred = append(r.deferred, deferredWorkload{seq, o})
			r.mu.Unlock()
		} else {
			out = append(out, r.checkWorkload(o, w)...)
		}
	}
	r.add(seq, out)
}

func (r *run) runtimeClass(name string) *nodev1.RuntimeClass {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rcs[name]
}

func (r *run) checkWorkload(o *manifest.Object, w *manifest.Workload) []rule.Finding {
	var rc *nodev1.RuntimeClass
	if w.Spec.RuntimeClassName != nil {
		rc = r.runtimeClass(*w.Spec.RuntimeClassName)
	}
	facts := target.Resolve(target.Input{Spec: w.Spec, SpecPath: w.SpecPath, RuntimeClass: rc, Cluster: r.opts.Cluster, Model: r.opts.Model})
	var out []rule.Finding
	emit := func(f rule.Finding) { out = append(out, f) }
	for _, ru := range r.workload {
		ru.Workload(&rule.Pass{Rule: ru, Object: o, Workload: w, Target: &facts, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit})
	}
	ns := o.Namespace
	r.mu.Lock()
	r.summaries = append(r.summaries, rule.Summary{Kind: o.Kind, Namespace: ns, Name: o.Name, Labels: w.Template.Labels, OS: facts.OS})
	r.mu.Unlock()
	return out
}

// ignored reads the rule IDs an object's winkube.io/ignore annotations
// name: on the object itself and, for workloads, on the pod template.
func ignored(o *manifest.Object) map[string]bool {
	m := map[string]bool{}
	spec := o.Root.Get("spec")
	for _, meta := range []*manifest.Node{
		o.Root.Get("metadata"),
		spec.Get("template").Get("metadata"),
		spec.Get("jobTemplate").Get("spec").Get("template").Get("metadata"),
	} {
		for _, id := range strings.Split(meta.Get("annotations").String(IgnoreAnnotation), ",") {
			if id = strings.TrimSpace(id); id != "" {
				m[id] = true
			}
		}
	}
	return m
}

func (r *run) add(seq int, fs []rule.Finding) {
	if len(fs) == 0 {
		return
	}
	r.mu.Lock()
	for _, f := range fs {
		r.findings = append(r.findings, seqFinding{seq, f})
	}
	r.mu.Unlock()
}

func (r *run) finish() *Result {
	for _, d := range r.deferred {
		r.add(d.seq, r.checkWorkload(d.obj, d.obj.Workload()))
	}
	var out []rule.Finding
	emit := func(f rule.Finding) { out = append(out, f) }
	for _, ru := range r.corpus {
		ru.Corpus(&rule.CorpusPass{Rule: ru, Services: r.services, Workloads: r.summaries, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit})
	}
	for _, f := range out {
		r.findings = append(r.findings, seqFinding{r.seqOf[f.Object], f})
	}
	res := &Result{Files: r.files, Objects: r.objects, Findings: make([]rule.Finding, 0, len(r.findings))}
	sort.SliceStable(r.findings, func(i, j int) bool { return r.findings[i].seq < r.findings[j].seq })
	fileOrder := map[string]int{}
	ignores := map[*manifest.Object]map[string]bool{}
	for _, sf := range r.findings {
		f := sf.f
		if f.Object != nil {
			f.File = f.Object.File
			f.Line, f.Column = f.Object.Locate(f.Path)
			ig, ok := ignores[f.Object]
			if !ok {
				ig = ignored(f.Object)
				ignores[f.Object] = ig
			}
			f.Suppressed = ig["all"] || ig[f.Rule]
		}
		if _, ok := fileOrder[f.File]; !ok {
			fileOrder[f.File] = len(fileOrder)
		}
		res.Findings = append(res.Findings, f)
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.File != b.File {
			return fileOrder[a.File] < fileOrder[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
	return res
}

// String is for debugging.
func (r *Result) String() string {
	return fmt.Sprintf("%d files, %d objects, %d findings", r.Files, r.Objects, len(r.Findings))
}
