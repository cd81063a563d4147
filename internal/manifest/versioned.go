package manifest

import (
	"errors"
	"fmt"
	"sort"
)

// APIVersion is the apiVersion of every versioned file winkube reads (a
// Config, a Cluster, a WindowsNode) and every report it writes; defined
// here once.
const APIVersion = "winkube.io/v1alpha1"

// Problem is one problem a versioned file's validation finds: Path is the
// field, written API-style from the file's root ("pools[0].cpu"), and Msg
// says what is wrong with it.
type Problem struct{ Path, Msg string }

// Problemf makes a Problem.
func Problemf(path, format string, args ...any) Problem {
	return Problem{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Under returns the problems with prefix and a dot before their paths, for
// a section validated on its own (a Config's cluster).
func Under(prefix string, ps []Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = Problem{Path: prefix + "." + p.Path, Msg: p.Msg}
	}
	return out
}

// ProblemsError joins problems that have no file to locate them in (a
// Cluster built in code), as "path: msg" errors of class ErrInvalid.
func ProblemsError(ps []Problem) error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = &problemError{p}
	}
	return errors.Join(errs...)
}

type problemError struct{ p Problem }

func (e *problemError) Error() string { return e.p.Path + ": " + e.p.Msg }
func (e *problemError) Unwrap() error { return ErrInvalid }

// MaxConfigSize bounds a versioned configuration file.
const MaxConfigSize = 64 << 20

// LoadFile reads a versioned file (.winkube.yaml, a Cluster file, the
// webhook config) and decodes it with DecodeFile. A file that cannot be
// read is an ErrRead *Error naming it; one that is not a regular file
// (a FIFO, /dev/zero) or is over MaxConfigSize is refused unread.
func LoadFile(path string, v any, validate func() []Problem) error {
	data, err := ReadFile(path, MaxConfigSize)
	if err != nil {
		if me, ok := err.(*Error); ok {
			return me
		}
		return ReadError(path, err)
	}
	return DecodeFile(path, data, v, validate)
}

// DecodeFile is the one path of winkube's versioned files: decode the
// single document strictly into v (unknown fields and wrong types are
// ErrType errors), then, when that succeeds, validate it (validate may be
// nil) and locate every problem at file:line:col (ErrInvalid). Every
// problem is reported at once: an errors.Join of *Error in file order.
func DecodeFile(file string, data []byte, v any, validate func() []Problem) error {
	if err := DecodeStrict(file, data, v); err != nil {
		return err
	}
	if validate == nil {
		return nil
	}
	ps := validate()
	if len(ps) == 0 {
		return nil
	}
	root, _ := parseYAML(file, 1, data) // DecodeStrict parsed it already
	located := make([]*Error, len(ps))
	for i, p := range ps {
		e := &Error{File: file, Line: 1, Msg: p.Path + ": " + p.Msg, Class: ErrInvalid}
		if root != nil {
			e.Line, e.Column = (&Object{Root: root}).Locate(p.Path)
		}
		located[i] = e
	}
	sort.SliceStable(located, func(i, j int) bool {
		a, b := located[i], located[j]
		return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
	})
	errs := make([]error, len(located))
	for i, e := range located {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// ReadError is the ErrRead problem of a file that cannot be read.
func ReadError(path string, err error) *Error {
	return &Error{File: path, Msg: "cannot read: " + pathError(err), Hint: "check the path", Class: ErrRead, Err: err}
}
