//go:build unix

package atomicwrite

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// chowner returns a function that gives a new file the owner of the one it
// replaces, when the process may (root); otherwise nil.
func chowner(st fs.FileInfo) func(*os.File) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return func(f *os.File) { f.Chown(int(sys.Uid), int(sys.Gid)) }
}

// syncDir makes the rename durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
