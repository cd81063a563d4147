package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Input is one source of documents: a file or stdin.
type Input struct {
	Name string // file path, or "<stdin>"
	JSON bool   // a .json file: one document, no "---" splitting
	// Origin is set for rendered text (a Helm chart, a kustomization):
	// it maps the text's positions back to the templates or bases.
	Origin Origin
	open   func() (io.ReadCloser, error)
	docs   []Document // a DocumentsInput's documents, read already
	split  bool       // a DocumentsInput: docs is all there is
}

// Open opens the input for reading.
func (in Input) Open() (io.ReadCloser, error) { return in.open() }

// Inputs resolves command-line arguments into inputs: files as given,
// folders recursively (*.yaml, *.yml, *.json; hidden folders skipped) in
// lexical order, and "-" for stdin. A missing path is an error, never a
// silent skip.
func Inputs(args []string, stdin io.Reader) ([]Input, []*Error) {
	var ins []Input
	var errs []*Error
	for _, arg := range args {
		if arg == "-" {
			ins = append(ins, Input{Name: "<stdin>", open: func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }})
			continue
		}
		info, err := os.Stat(arg)
		if err != nil {
			errs = append(errs, &Error{File: arg, Msg: "cannot read: " + pathError(err), Hint: "check the path; use - to read from stdin", Class: ErrRead, Err: err})
			continue
		}
		if !info.IsDir() {
			ins = append(ins, fileInput(arg, info.Mode()))
			continue
		}
		found := 0
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &Error{File: p, Msg: "cannot read: " + pathError(err), Class: ErrRead, Err: err})
				return nil
			}
			if d.IsDir() {
				if p != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
				mode := d.Type()
				if mode&fs.ModeSymlink != 0 { // a link is read as what it points to
					if st, err := os.Stat(p); err == nil {
						mode = st.Mode()
					}
				}
				ins = append(ins, fileInput(p, mode))
				found++
			}
			return nil
		})
		if err != nil {
			errs = append(errs, &Error{File: arg, Msg: err.Error(), Class: ErrRead, Err: err})
		}
		if found == 0 {
			errs = append(errs, &Error{File: arg, Msg: "folder holds no *.yaml, *.yml or *.json files", Hint: "point winkube at the manifests, or pipe rendered output: kustomize build . | winkube lint -", Class: ErrRead})
		}
	}
	return ins, errs
}

// fileInput reads the file at p. Anything but a regular file (a FIFO, a
// device, a socket) is an input whose opening fails: reading it could
// block forever or never end.
func fileInput(p string, mode fs.FileMode) Input {
	in := Input{Name: p, JSON: strings.EqualFold(filepath.Ext(p), ".json")}
	if !mode.IsRegular() {
		in.open = func() (io.ReadCloser, error) { return nil, notRegular(p, mode) }
		return in
	}
	in.open = func() (io.ReadCloser, error) { return openRegular(p) }
	return in
}

func notRegular(p string, mode fs.FileMode) *Error {
	return &Error{File: p, Msg: fmt.Sprintf("cannot read: %s (%s)", ErrNotRegular, fileType(mode)),
		Hint: "winkube reads regular files only; pipe other sources to stdin: cat " + p + " | winkube lint -", Class: ErrNotRegular}
}

func fileType(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a broken symbolic link"
	}
	return "type " + mode.Type().String()
}

func pathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ReadAll reads every object of the inputs in order. It suits small inputs
// and tests; the engine streams instead.
func ReadAll(ins []Input) ([]*Object, []*Error) {
	var objs []*Object
	var errs []*Error
	for _, in := range ins {
		err := Each(in, func(doc Document) {
			o, es := Decode(doc)
			objs = append(objs, o...)
			errs = append(errs, es...)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errs
}

// Each calls fn for every document of the input, in order. The returned
// error, if any, ended the input early.
func Each(in Input, fn func(Document)) *Error {
	return EachContext(context.Background(), in, fn)
}

// EachContext is Each that stops, with an error of class ErrRead whose
// cause is ctx's, once ctx is done: a signal ends the read of a large file
// between two of its reads.
func EachContext(ctx context.Context, in Input, fn func(Document)) *Error {
	if in.split {
		return eachDocument(ctx, in, fn)
	}
	r, err := in.Open()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return &Error{File: in.Name, Msg: "cannot read: " + pathError(err), Class: ErrRead, Err: err}
	}
	defer r.Close()
	s := NewSplitter(in.Name, Limit(in.Name, checkContext(ctx, r)), in.JSON)
	defer s.release()
	for {
		doc, err := s.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return e
			}
			return &Error{File: in.Name, Msg: fmt.Sprint(err), Class: ErrRead, Err: err}
		}
		fn(doc)
	}
}
