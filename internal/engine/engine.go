package engine

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"

	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
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
	// Images, when set, gives image rules the registry's platforms.
	Images rule.ImageLookup
}

// Result is the outcome of a run.
type Result struct {
	Findings []rule.Finding // in input order, then line, column, rule
	Files    int
	Objects  int
	// Unread are the inputs that could not be read at all (a missing
	// path, no permission, not a regular file), whatever load-error's
	// configuration: the front-end's exit status says so.
	Unread []*manifest.Error
}

// Run checks every document of the inputs.
func Run(ctx context.Context, inputs []manifest.Input, opts Options) (*Result, error) {
	return runInputs(ctx, inputs, nil, opts)
}

// RunPaths resolves command-line arguments (files, folders, - for stdin)
// and checks every document found. A path that cannot be read is an input
// problem like any other: a load-error finding at load-error's configured
// severity (none when it is disabled), ahead of the inputs' findings.
func RunPaths(ctx context.Context, args []string, stdin io.Reader, opts Options) (*Result, error) {
	ins, errs := manifest.Inputs(args, stdin)
	return runInputs(ctx, ins, errs, opts)
}

// RunResolved checks inputs already resolved from the arguments (charts
// rendered, kustomizations built) and reports the problems met resolving
// them as RunPaths does.
func RunResolved(ctx context.Context, inputs []manifest.Input, errs []*manifest.Error, opts Options) (*Result, error) {
	return runInputs(ctx, inputs, errs, opts)
}

func runInputs(ctx context.Context, inputs []manifest.Input, pathErrs []*manifest.Error, opts Options) (*Result, error) {
	r := newRun(opts)
	for _, e := range pathErrs {
		r.loadError(-1, e)
	}
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
		if lerr := manifest.EachContext(ctx, in, func(d manifest.Document) {
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
	res := r.finish()
	toSources(res.Findings, inputs)
	return res, nil
}

// Check runs the rules over objects already in memory (the webhook's one
// object, a live cluster's listing).
func Check(objs []*manifest.Object, opts Options) *Result {
	r := newRun(opts)
	for i, o := range objs {
		r.object(i, o, nil, nil)
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
	rcSeq     map[string]int // input position of each class kept: the first wins
	deferred  []deferredWorkload
	services  []*manifest.Object
	policies  []*manifest.Object                      // NetworkPolicies, kept like Services
	configs   []*manifest.Object                      // ConfigMaps, kept like Services
	seqOf     map[*manifest.Object]int                // input position of every Service, for Corpus findings
	raw       map[*manifest.Object]*manifest.Document // the text of objects kept without their node tree
	summaries []rule.Summary
	unread    []*manifest.Error
	evidence  evidence // what the input's Windows workloads tolerate
	held      []held   // findings waiting for the whole input (rule.Pass.Later)
}

type seqFinding struct {
	seq int
	f   rule.Finding
}

// deferredWorkload waits for its RuntimeClass. It keeps the document's
// text rather than the parsed object, and is decoded again at the end.
type deferredWorkload struct {
	seq  int
	obj  *manifest.Object // when there is no document (Check)
	doc  *manifest.Document
	item int
}

func newRun(opts Options) *run {
	if opts.Cluster == nil {
		opts.Cluster = cluster.Reference()
	}
	r := &run{opts: opts, objRules: map[string][]*rule.Rule{}, rcs: map[string]*nodev1.RuntimeClass{}, rcSeq: map[string]int{}, seqOf: map[*manifest.Object]int{}, raw: map[*manifest.Object]*manifest.Document{}}
	for _, rc := range opts.RuntimeClasses {
		r.rcs[rc.Name], r.rcSeq[rc.Name] = rc, -1 // the cluster's own come first
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
	ph := placeholderFields(errs)
	for _, o := range objs {
		r.object(j.seq, o, &j.doc, ph)
	}
}

// loadError turns an input problem into a load-error finding: the only
// place that does. YAML that is not a Kubernetes object is at most a
// warning.
func (r *run) loadError(seq int, e *manifest.Error) {
	if ru, ok := r.noteRule(e); ok {
		r.note(seq, ru, e)
		return
	}
	if errors.Is(e, manifest.ErrRead) || errors.Is(e, manifest.ErrNotRegular) {
		r.mu.Lock()
		r.unread = append(r.unread, e)
		r.mu.Unlock()
	}
	if r.loadRule == nil {
		return
	}
	f := rule.Finding{Rule: LoadErrorID, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
	if errors.Is(e, manifest.ErrNotObject) {
		f.Severity = min(r.loadRule.Severity, rule.Warning)
	}
	f.Severity = r.loadRule.SeverityOf(f)
	r.mu.Lock()
	r.findings = append(r.findings, seqFinding{seq, f})
	r.mu.Unlock()
}

// object checks one object. doc, when given, is the document it came
// from: what the run must keep of it until the end (a Service for the
// cross-object rules, a workload waiting for its RuntimeClass) is kept as
// that text rather than as the parsed object. ph are the document's
// placeholder values, which load-error reports and no other rule.
func (r *run) object(seq int, o *manifest.Object, doc *manifest.Document, ph map[position]bool) {
	r.mu.Lock()
	r.objects++
	if rc, ok := o.Typed.(*nodev1.RuntimeClass); ok {
		// Two classes of one name (in unrelated files) would make the
		// result depend on which worker came first; the first in input
		// order wins, as the API server keeps the first created.
		if prev, ok := r.rcSeq[rc.Name]; !ok || seq < prev {
			r.rcs[rc.Name], r.rcSeq[rc.Name] = rc, seq
		}
	}
	if (o.Kind == "Service" || o.Kind == "NetworkPolicy" || o.Kind == "ConfigMap") && o.Typed != nil {
		keep := o
		if doc != nil {
			light := *o
			light.Root = nil
			keep = &light
			r.raw[keep] = doc
		}
		switch o.Kind {
		case "Service":
			r.services = append(r.services, keep)
		case "NetworkPolicy":
			r.policies = append(r.policies, keep)
		default:
			r.configs = append(r.configs, keep)
		}
		r.seqOf[keep] = seq
	}
	r.mu.Unlock()

	var out []rule.Finding
	var hs []held
	emit := func(f rule.Finding) { out = append(out, f) }
	// Object rules run on untyped kinds too (GMSACredentialSpec names,
	// removed API versions); a rule that needs the typed object checks it.
	for _, ru := range r.objRules[o.Kind] {
		ru.Object(&rule.Pass{Rule: ru, Object: o, Cluster: r.opts.Cluster, Model: r.opts.Model, Images: r.opts.Images, Emit: emit, Defer: holder(ru, &hs)})
	}
	out = withoutPlaceholderFields(o, out, ph)
	r.hold(seq, hs)
	if w := o.Workload(); w != nil {
		// A workload naming a RuntimeClass waits until the whole input is
		// read, so it sees the class the input order decides, whatever the
		// order the workers finish in.
		if w.Spec.RuntimeClassName != nil && *w.Spec.RuntimeClassName != "" {
			r.mu.Lock()
			d := deferredWorkload{seq: seq, obj: o}
			if doc != nil {
				d = deferredWorkload{seq: seq, doc: doc, item: o.Item}
			}
			r.deferred = append(r.deferred, d)
			r.mu.Unlock()
		} else {
			out = append(out, withoutPlaceholderFields(o, r.checkWorkload(seq, o, w), ph)...)
		}
	}
	r.add(seq, out)
}

func (r *run) runtimeClass(name string) *nodev1.RuntimeClass {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rcs[name]
}

// facts derives the workload's target facts, with its RuntimeClass if known.
func (r *run) facts(w *manifest.Workload) target.Facts {
	var rc *nodev1.RuntimeClass
	if w.Spec.RuntimeClassName != nil {
		rc = r.runtimeClass(*w.Spec.RuntimeClassName)
	}
	return target.Resolve(target.Input{Spec: w.Spec, SpecPath: w.SpecPath, RuntimeClass: rc, Cluster: r.opts.Cluster, Model: r.opts.Model})
}

// checkWorkload runs the workload rules over the workload at input
// position seq and returns their findings; the findings they hold until
// the input is read are kept by the run.
func (r *run) checkWorkload(seq int, o *manifest.Object, w *manifest.Workload) []rule.Finding {
	facts := r.facts(w)
	var out []rule.Finding
	var hs []held
	emit := func(f rule.Finding) { out = append(out, f) }
	for _, ru := range r.workload {
		ru.Workload(&rule.Pass{Rule: ru, Object: o, Workload: w, Target: &facts, Cluster: r.opts.Cluster, Model: r.opts.Model, Images: r.opts.Images, Emit: emit, Defer: holder(ru, &hs)})
	}
	r.hold(seq, hs)
	ns := o.Namespace
	r.mu.Lock()
	r.summaries = append(r.summaries, rule.Summary{Kind: o.Kind, Namespace: ns, Name: o.Name, Labels: w.Template.Labels, OS: facts.OS, Replicas: w.Replicas, ConfigMaps: svcname.ConfigMaps(w.Spec), HostProcess: facts.HostProcess, DNSPolicy: string(w.Spec.DNSPolicy)})
	r.evidence.count(&facts)
	r.evidence.agent(o.Kind, w.Spec, &facts)
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
	r.settle(fs)
	r.mu.Lock()
	for _, f := range fs {
		r.findings = append(r.findings, seqFinding{seq, f})
	}
	r.mu.Unlock()
}

// A ruleNote is the Class of an input note that a rule of its own reports
// rather than load-error (chart.ErrWindowsNotRendered): a finding about
// the input, not a problem reading it.
type ruleNote interface{ RuleID() string }

// noteRule is the enabled rule a note names; ok with a nil rule when the
// rule is disabled, not ok when e is no note.
func (r *run) noteRule(e *manifest.Error) (*rule.Rule, bool) {
	var n ruleNote
	if !errors.As(e, &n) {
		return nil, false
	}
	for _, ru := range r.opts.Rules {
		if ru.ID == n.RuleID() {
			return ru, true
		}
	}
	return nil, true
}

// note reports a note as its rule's finding, at its configured severity.
func (r *run) note(seq int, ru *rule.Rule, e *manifest.Error) {
	if ru == nil {
		return
	}
	f := rule.Finding{Rule: ru.ID, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Column}
	f.Severity = ru.SeverityOf(f)
	r.mu.Lock()
	r.findings = append(r.findings, seqFinding{seq, f})
	r.mu.Unlock()
}
