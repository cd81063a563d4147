//go:build unix

package manifest

import "syscall"

// openFlags are added to O_RDONLY when openRegular opens a file: without
// blocking, since a FIFO swapped in after a check would otherwise block
// the open.
const openFlags = syscall.O_NONBLOCK
