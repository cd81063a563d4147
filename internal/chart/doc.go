// Package chart renders a Helm chart in-process, as helm template does,
// into inputs whose findings point back at the template lines.
package chart
