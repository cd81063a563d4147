// Package report writes findings as text, JSON, SARIF 2.1.0 and GitHub
// Actions annotations. The format never changes what was found or the
// exit code.
package report
