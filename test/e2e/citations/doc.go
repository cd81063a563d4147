// Package citations checks that the Kubernetes source files winkube's rules
// and doctor's causes cite exist at the tag they name, in the Kubernetes
// module the control-plane build downloads.
package citations
