package manifest

import (
	"errors"
	"fmt"
)

// Input-problem classes. Every *Error carries one (Class); callers branch
// with errors.Is(err, manifest.ErrNotObject), never on the message.
var (
	// ErrRead: a path that does not exist or cannot be read, a folder
	// without manifests, or an I/O failure while reading.
	ErrRead = errors.New("cannot read input")
	// ErrBinary: a NUL byte; winkube reads text.
	ErrBinary = errors.New("binary content")
	// ErrTooLarge: a document or an input over its size limit.
	ErrTooLarge = errors.New("input too large")
	// ErrNotRegular: a path is a FIFO, device or socket, which could block
	// or never end; only regular files and stdin are read.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSyntax: invalid YAML or JSON.
	ErrSyntax = errors.New("invalid YAML")
	// ErrTemplate: an unrendered Helm template.
	ErrTemplate = errors.New("unrendered template")
	// ErrPlaceholder: a placeholder such as <image-name> or ${VAR} left in
	// an identifying field.
	ErrPlaceholder = errors.New("unfilled placeholder")
	// ErrNotObject: YAML that is not a Kubernetes object (Helm values, CI
	// configuration). Front-ends report it as a warning.
	ErrNotObject = errors.New("not a Kubernetes object")
	// ErrType: a value of the wrong type or an unknown field, found while
	// decoding into the API's or winkube's own types.
	ErrType = errors.New("wrong type or unknown field")
	// ErrInvalid: a value that decodes but is not valid (a versioned config
	// file's validation).
	ErrInvalid = errors.New("invalid value")
)

// Error is a problem reading input. It names the file and position and,
// where one helps, says what to do.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
	Hint   string
	// Class is one of the Err* classes above; errors.Is matches it.
	Class error
	// Err is the underlying cause, if any (an *fs.PathError...).
	Err error
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			s += fmt.Sprintf(":%d", e.Column)
		}
	}
	s += ": " + e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap returns the class and the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Class, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Errors returns every *Error in err (a single one, or an errors.Join of
// them), in order; other errors come back as ErrRead problems of file.
func Errors(file string, err error) []*Error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, isOne := err.(*Error); !isOne {
			var out []*Error
			for _, e := range j.Unwrap() {
				out = append(out, Errors(file, e)...)
			}
			return out
		}
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return []*Error{{File: file, Msg: err.Error(), Class: ErrRead, Err: err}}
}
