package fix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// MaxPasses bounds how often fixes are checked again. A fix can make
// another due (pinning a workload to Windows makes the Windows toleration
// due); every chain in the suite settles within three passes, and the
// bound keeps two disagreeing fixes from looping. The CLI, the webhook and
// the tests all converge through Converge or Rounds, so they agree.
const MaxPasses = 5

// Rounds calls pass until it reports no progress, at most MaxPasses
// times. It reports whether the last pass still made progress.
func Rounds(pass func(round int) (progress bool, err error)) (unsettled bool, err error) {
	for round := 0; round < MaxPasses; round++ {
		progress, err := pass(round)
		if err != nil || !progress {
			return false, err
		}
	}
	return true, nil
}

// File is one input of Converge: its name and its bytes as read.
type File struct {
	Name string
	Data []byte
}

// FileResult is what Converge made of one file.
type FileResult struct {
	Name string
	// After is the fixed file, in the file's own encoding and line breaks;
	// it equals the input when nothing changed or the file was refused.
	After []byte
	// Notes describe the edits that changed the file, Failures the edits
	// (and input problems) that could not be made; a failure means the
	// run must not report success.
	Notes, Failures []string
	// Applied is every edit's outcome, pass by pass.
	Applied []Applied
	// NotObjects are the documents that are YAML but not Kubernetes
	// objects (Helm values): nothing to fix, and no failure; the caller
	// reports them as every front-end does.
	NotObjects []*manifest.Error
}

// Changed reports whether the file is to be written.
func (r *FileResult) Changed(before []byte) bool { return !bytes.Equal(before, r.After) }

// Result is the outcome of Converge.
type Result struct {
	Files   []*FileResult // in the order of the input
	Skipped []rule.Finding
}

// Converge lints the files and applies the fixes the policy allows, again
// on the result until a pass changes nothing. Each file is edited in its
// own encoding; a file fix cannot read, or whose fixed text would not read
// back as intended, is left as it was and says why in Failures.
func Converge(ctx context.Context, files []File, lint engine.Options, p Policy) (*Result, error) {
	res := &Result{}
	texts := make([]*fileText, len(files))
	for i, f := range files {
		fr := &FileResult{Name: f.Name, After: f.Data}
		res.Files = append(res.Files, fr)
		text, enc, err := decodeFile(f.Data)
		if err != nil {
			fr.Failures = append(fr.Failures, err.Error())
			continue
		}
		isJSON := strings.EqualFold(extOf(f.Name), ".json")
		t := &fileText{orig: text, enc: enc, seen: map[string]bool{}}
		t.file, t.unsplit = readFile(f.Name, text, isJSON)
		if t.unsplit != nil {
			t.file = &file{name: f.Name, text: text, json: isJSON}
		}
		texts[i] = t
		failures, notObjects := t.unreadable()
		fr.Failures, fr.NotObjects = append(fr.Failures, failures...), notObjects
	}
	unsettled, err := Rounds(func(round int) (bool, error) {
		ins := make([]manifest.Input, 0, len(files))
		for _, t := range texts {
			if t != nil {
				ins = append(ins, t.input())
			}
		}
		out, err := engine.Run(ctx, ins, lint)
		if err != nil {
			return false, err
		}
		byFile, skipped := Plan(out.Findings, p)
		res.Skipped = skipped
		progress := false
		for i, f := range files {
			if t := texts[i]; t != nil && t.step(f.Name, byFile[f.Name], res.Files[i]) {
				progress = true
			}
		}
		return progress, nil
	})
	if err != nil {
		return nil, err
	}
	for i, t := range texts {
		if t == nil {
			continue
		}
		fr := res.Files[i]
		if unsettled && t.changedLast {
			fr.Failures = append(fr.Failures, fmt.Sprintf("fixes still change the file after %d passes; the rules disagree, please report this", MaxPasses))
		}
		if !bytes.Equal(t.text, t.orig) {
			fr.After = t.enc.encode(t.text)
		}
	}
	return res, nil
}

// fileText is a file being fixed, as UTF-8.
type fileText struct {
	*file
	unsplit     error  // why the file cannot be split into documents
	orig        []byte // the text before the first pass
	enc         encoding
	seen        map[string]bool // failures reported already
	changedLast bool
}

// input is the file as the engine reads it: its documents as read, or its
// text when it cannot be split (the engine reports why).
func (t *fileText) input() manifest.Input {
	if t.unsplit != nil {
		return manifest.BytesInput(t.name, t.text)
	}
	return t.file.input()
}

// step applies one pass's edits and reports whether the text changed.
func (t *fileText) step(name string, edits []Edit, fr *FileResult) bool {
	before := t.text
	var applied []Applied
	switch {
	case t.unsplit != nil && len(edits) > 0:
		applied = refuseAll(edits, t.unsplit)
	case t.unsplit == nil:
		applied = t.apply(edits)
	}
	fr.Applied = append(fr.Applied, applied...)
	for _, a := range applied {
		d := Describe(a)
		switch {
		case a.Err != nil && !t.seen[d]:
			t.seen[d] = true
			fr.Failures = append(fr.Failures, d)
		case a.Changed:
			fr.Notes = append(fr.Notes, d)
		}
	}
	t.changedLast = !bytes.Equal(before, t.text)
	return t.changedLast
}

// unreadable reports the documents of a file that yield no object (they
// do not parse): fix cannot see them, and saying nothing would pass them
// off as fixed. A document that is YAML but not a Kubernetes object is
// returned apart: there is nothing in it to fix. Problems of an object
// that still loaded (an unfilled placeholder, a mistyped field) are lint's
// to report; the rules ran on the object.
func (t *fileText) unreadable() (failures []string, notObjects []*manifest.Error) {
	if t.unsplit != nil {
		return []string{fmt.Sprintf("not fixed, cannot read: %v", t.unsplit)}, nil
	}
	for _, d := range t.docs {
		objs, errs := manifest.Decode(d)
		switch {
		case len(objs) > 0 || len(errs) == 0:
		case errors.Is(errs[0], manifest.ErrNotObject):
			notObjects = append(notObjects, errs[0])
		default:
			failures = append(failures, fmt.Sprintf("line %d: document not fixed, cannot read it: %s", errs[0].Line, errs[0].Msg))
		}
	}
	return failures, notObjects
}

func extOf(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || strings.ContainsAny(name[i:], `/\`) {
		return ""
	}
	return name[i:]
}
