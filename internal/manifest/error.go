package manifest

import (
	"errors"
	"fmt"
)

// Error is a problem reading input. It names the file and position and,
// where one helps, says what to do.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
	Hint   string
	// Err is the class of the problem, for errors.Is: ErrBinary,
	// ErrTooLarge, ErrNotRegular, or the underlying read error.
	Err error
}

// Classes of input problems.
var (
	// ErrBinary: a document holds a NUL byte.
	ErrBinary = errors.New("binary content")
	// ErrTooLarge: a document or an input is over its size limit.
	ErrTooLarge = errors.New("input too large")
	// ErrNotRegular: a path is a FIFO, device or socket, which could block
	// or never end; only regular files and stdin are read.
	ErrNotRegular = errors.New("not a regular file")
)

// Unwrap returns the class of the problem.
func (e *Error) Unwrap() error { return e.Err }

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
