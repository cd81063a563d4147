package atomicwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrSymlink is returned for a path that is a symbolic link: replacing it
// would turn the link into a regular file, and following it could write
// outside the folder the user named.
var ErrSymlink = errors.New("is a symbolic link")

// ErrNotRegular is returned for a path that exists but is not a regular
// file (a folder, a FIFO, a device, a socket).
var ErrNotRegular = errors.New("is not a regular file")

// File writes data to path through a temporary file in the same folder:
// write, sync, give it path's mode (perm when path does not exist yet),
// rename it over path, sync the folder. On any failure path is left as it
// was and the temporary file is removed; the error names path.
//
// An existing path must be a regular file that the caller may write
// (opening it for writing is the check, so a read-only file stays
// read-only for users who cannot write it), never a symbolic link.
func File(path string, data []byte, perm fs.FileMode) error {
	if err := write(path, data, perm, false); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Secret is File for key material: the new file has exactly perm, set on
// the temporary file before any byte is written, whatever mode a file
// already at path had (an existing 0644 key becomes 0600), and a symbolic
// link at path is refused, never followed.
func Secret(path string, data []byte, perm fs.FileMode) error {
	if err := write(path, data, perm, true); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// write replaces path; exact gives the new file perm even when path
// exists with another mode.
func write(path string, data []byte, perm fs.FileMode, exact bool) error {
	mode, owner, err := existing(path, perm)
	if err != nil {
		return err
	}
	if exact {
		mode, owner = perm, nil
	}
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, "."+filepath.Base(path)+".winkube-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	// The mode is set before the data arrives: a key is never readable by
	// others, not even for a moment.
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if owner != nil {
		owner(tmp) // best effort: only root can give the file away
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	return syncDir(dir)
}

// existing checks path and returns the mode the new file gets.
func existing(path string, perm fs.FileMode) (fs.FileMode, func(*os.File), error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return perm, nil, nil
	case err != nil:
		return 0, nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		return 0, nil, ErrSymlink
	case !st.Mode().IsRegular():
		return 0, nil, ErrNotRegular
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, nil, err
	}
	f.Close()
	return st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), chowner(st), nil
}

// Test hooks: the failures a disk can produce are hard to cause on demand.
var (
	createTemp = os.CreateTemp
	syncFile   = (*os.File).Sync
)
