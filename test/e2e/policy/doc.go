// Package policy holds the end-to-end test of winkube policy export: the
// exported ValidatingAdmissionPolicy and MutatingAdmissionPolicy objects
// are installed in a real kube-apiserver v1.36.3 and must decide every rule
// fixture, the real corpus and a seeded generated corpus as winkube lint
// and winkube fix do, object by object.
package policy
