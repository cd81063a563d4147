//go:build !unix

package manifest

import "os"

// openRegular opens p and checks it is a regular file.
func openRegular(p string) (*os.File, error) {
	f, err := os.Open(p)
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
