//go:build !unix

package atomicwrite

import (
	"io/fs"
	"os"
)

func chowner(fs.FileInfo) func(*os.File) { return nil }

// syncDir is a no-op: Windows cannot sync a folder, and its rename is
// journaled by NTFS.
func syncDir(string) error { return nil }
