package manifest

import (
	"fmt"
	"io"
)

// ReadFile reads the regular file at p whole, with lint's input rules: a
// FIFO, device or socket is refused without reading (a FIFO without
// blocking in the open), and reading stops with an *Error of class
// ErrTooLarge past max bytes (MaxInputSize when max is 0).
func ReadFile(p string, max int64) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		if _, ok := err.(*Error); ok {
			return nil, err
		}
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	defer f.Close()
	if max <= 0 {
		max = maxInput
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, &Error{File: p, Msg: fmt.Sprintf("input is larger than %d KiB", max>>10),
			Hint: "a configuration file this size is not one winkube reads", Class: ErrTooLarge}
	}
	return data, nil
}
