package report

import (
	"errors"
	"io"
)

// SARIF writes SARIF 2.1.0. (being written)
func SARIF(w io.Writer, r *Report) error { return errors.New("sarif output is not available yet") }

// GitHub writes GitHub Actions annotations. (being written)
func GitHub(w io.Writer, r *Report) error { return errors.New("github output is not available yet") }
