package manifest

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads the regular file at p whole, with lint's input rules: a
// FIFO, device or socket is refused without reading (a FIFO without
// blocking in the open), and reading stops with an *Error of class
// ErrTooLarge past max bytes (MaxInputSize when max is 0). Other errors
// are the *fs.PathError of the open or the read.
func ReadFile(p string, max int64) ([]byte, error) {
	f, err := openRegular(p) // its errors name p: an *Error or an *fs.PathError
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max <= 0 {
		max = maxInput
	}
	data, over, err := ReadAtMost(f, max)
	if err != nil {
		return nil, err // an *fs.PathError naming p
	}
	if over {
		return nil, &Error{File: p, Msg: fmt.Sprintf("input is larger than %d KiB", max>>10),
			Hint: "a configuration file this size is not one winkube reads", Class: ErrTooLarge}
	}
	return data, nil
}

// ReadAtMost reads r whole unless it holds more than max bytes: then it
// stops after max+1 and says over, and the caller words the error for
// what it was reading (a file, a kubelet's answer, an image config).
func ReadAtMost(r io.Reader, max int64) (data []byte, over bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return nil, true, nil
	}
	return data, false, nil
}

// openRegular opens p (with openFlags: without blocking on unix) and
// checks it is a regular file.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(p, st.Mode())
	}
	return f, nil
}
