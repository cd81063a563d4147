// Package nodelog holds the signatures of node problems in a Windows
// node's service logs (the kubelet's node log query) that doctor and audit
// both match: the exact upstream strings, their sources and what to do.
package nodelog
