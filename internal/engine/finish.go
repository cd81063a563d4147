package engine

import (
	"fmt"
	"sort"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// The end of a run: findings settled against their objects, the workloads
// that waited for every RuntimeClass, the findings held until the input was
// read, the cross-object rules, and the findings back in input order.

// full returns obj with its node tree, decoding its document again when
// the run kept only the text.
func (r *run) full(obj *manifest.Object) *manifest.Object {
	if obj.Root != nil {
		return obj
	}
	r.mu.Lock()
	doc := r.raw[obj]
	r.mu.Unlock()
	if doc == nil {
		return obj
	}
	return reread(doc, obj.Item)
}

// reread decodes a document again and returns its object (or List item).
func reread(doc *manifest.Document, item int) *manifest.Object {
	o, _ := rereadWithPlaceholders(doc, item)
	return o
}

// rereadWithPlaceholders is reread with the document's placeholder values.
func rereadWithPlaceholders(doc *manifest.Document, item int) (*manifest.Object, map[position]bool) {
	objs, errs := manifest.Decode(*doc)
	for _, o := range objs {
		if o.Item == item {
			return o, placeholderFields(errs)
		}
	}
	return &manifest.Object{File: doc.File, Doc: doc.Index, Item: item, Root: &manifest.Node{}}, nil
}

// settle resolves the findings' positions and suppression while their
// object is at hand, then points them at a copy of the object that keeps
// only its identity, so a run holds findings, not documents.
func (r *run) settle(fs []rule.Finding) {
	var obj, ident *manifest.Object
	var ig map[string]bool
	for i := range fs {
		f := &fs[i]
		if f.Object == nil {
			continue
		}
		if f.Object != obj {
			obj = f.Object
			ident = &manifest.Object{File: obj.File, Doc: obj.Doc, Item: obj.Item, APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name}
			obj = r.full(obj)
			ig = ignored(obj)
		}
		f.File = obj.File
		f.Line, f.Column = obj.Locate(f.Path)
		f.Suppressed = ig["all"] || ig[f.Rule]
		f.Object = ident
	}
}

func (r *run) finish() *Result {
	for _, d := range r.deferred {
		o, ph := d.obj, map[position]bool(nil)
		if o == nil {
			o, ph = rereadWithPlaceholders(d.doc, d.item)
		}
		if w := o.Workload(); w != nil {
			r.add(d.seq, withoutPlaceholderFields(o, r.checkWorkload(d.seq, o, w), ph))
		}
	}
	r.release()
	var out []rule.Finding
	emit := func(f rule.Finding) { out = append(out, f) }
	for _, ru := range r.corpus {
		ru.Corpus(&rule.CorpusPass{Rule: ru, Services: r.services, NetworkPolicies: r.policies, ConfigMaps: r.configs, Workloads: r.summaries, Cluster: r.opts.Cluster, Model: r.opts.Model, Emit: emit})
	}
	for _, f := range out {
		seq := r.seqOf[f.Object]
		one := []rule.Finding{f}
		r.settle(one)
		r.findings = append(r.findings, seqFinding{seq, one[0]})
	}
	res := &Result{Files: r.files, Objects: r.objects, Findings: make([]rule.Finding, 0, len(r.findings)), Unread: r.unread}
	sort.SliceStable(r.findings, func(i, j int) bool { return r.findings[i].seq < r.findings[j].seq })
	for _, sf := range r.findings {
		res.Findings = append(res.Findings, sf.f)
	}
	sortBySource(res.Findings)
	return res
}

// sortBySource sorts findings by file, in the order the files are first
// met in fs, then by line, column and rule.
func sortBySource(fs []rule.Finding) {
	order := map[string]int{}
	for _, f := range fs {
		if _, ok := order[f.File]; !ok {
			order[f.File] = len(order)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return order[a.File] < order[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}

// String is for debugging.
func (r *Result) String() string {
	return fmt.Sprintf("%d files, %d objects, %d findings", r.Files, r.Objects, len(r.Findings))
}
