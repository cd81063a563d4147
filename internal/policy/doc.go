// Package policy exports winkube's rules as native admission policies:
// ValidatingAdmissionPolicy and MutatingAdmissionPolicy objects with their
// bindings and a params ConfigMap built from the cluster profile, or Kyverno
// ClusterPolicy resources carrying the same CEL.
//
// The rule→CEL mapping is a table keyed by rule ID (table.go). Every rule
// of the suite is either in it or in notExportable with the reason; a test
// holds the two to the suite. The CEL re-derives what internal/target
// derives for the engine (which OS a workload is for, from its scheduling
// pin, spec.os.name, HostProcess and its images) as policy variables, so
// each rule's expression reads like the Go rule it mirrors.
// test/e2e/policy proves the policies decide as lint does, object by
// object, in a real kube-apiserver.
package policy
