// Package fixreport renders what `winkube fix` did: unified diffs with the
// fixes explained above each file's, or a versioned JSON FixReport.
package fixreport
