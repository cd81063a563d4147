// Package precision holds winkube's precision regression suite: public
// Windows and hybrid manifests that winkube's other tests never saw, every
// finding on them reviewed by hand as true, debatable or false, and a test
// that keeps the reviewed verdicts and reports precision per rule.
package precision
