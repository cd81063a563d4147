//go:build unix

package manifest

import (
	"os"
	"syscall"
)

// openRegular opens p without blocking (a FIFO swapped in after the check
// would otherwise block the open) and checks it is a regular file.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
