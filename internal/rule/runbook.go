package rule

import "strings"

// Runbook documents a problem winkube names from what a cluster says
// rather than from a manifest: a doctor cause, a node-log signature (and
// the audit rule made from it). Both kinds embed it, so the problem is
// documented the same way wherever it is reported.
type Runbook struct {
	ID    string // kebab-case, stable forever
	Title string
	// Explain says what happened and why, on Windows in particular.
	Explain string
	// Steps are the runbook, in order.
	Steps []string
	// Patterns are the messages that show the problem.
	Patterns []Pattern
	Sources  []string // upstream code and docs it rests on
}

// Pattern is one upstream message that shows a problem. Text is matched
// case-insensitively as a substring of the whole message or log line, so
// the wrappers around it do not matter.
type Pattern struct {
	Text string
	// Service is the program that writes it: a node service (kubelet,
	// containerd, kube-proxy, flanneld), or for a pod's events and status
	// the component, runtime or library (kube-scheduler, hcsshim, curl).
	Service string
	// Source is the upstream file, at a tag, that writes it.
	Source string
}

// Matches reports whether msg contains p.
func (p Pattern) Matches(msg string) bool {
	return strings.Contains(strings.ToLower(msg), strings.ToLower(p.Text))
}
