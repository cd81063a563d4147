//go:build !unix

package manifest

// openFlags are added to O_RDONLY when openRegular opens a file.
const openFlags = 0
