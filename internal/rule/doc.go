// Package rule defines what a winkube rule is: a documented value with a
// stable ID, a default severity, a doc that says what it checks, why it
// matters on Windows and how to fix it, and a function that reports
// findings through a Pass.
//
// Rules never read files, parse YAML or work out a workload's OS: the
// engine does that once and hands every rule the same Pass. A rule that can
// repair what it finds attaches a Fix, a list of field edits, which `fix`
// renders as YAML text edits and the webhook as a JSON patch. The suite of
// rules is an explicit list in package rules; nothing registers itself.
package rule
