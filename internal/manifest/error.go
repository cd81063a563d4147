package manifest

import "fmt"

// Error is a problem reading input. It names the file and position and,
// where one helps, says what to do.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
	Hint   string
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
