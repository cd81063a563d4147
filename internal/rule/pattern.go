package rule

import "strings"

// Pattern is one upstream message that shows a problem a doctor cause or
// a node-log signature names. Text is matched case-insensitively as a
// substring of the whole message or log line, so the wrappers around it
// do not matter.
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
