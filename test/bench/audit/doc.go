// Package audit benchmarks winkube audit and winkube doctor against a
// real kube-apiserver holding a large hybrid cluster (by default 2,000
// nodes, a third Windows, 50,000 pods and 100,000 events), with
// `kubectl get pods,events -A -o json` timed in the same run as the
// floor. Run it with hack/bench-audit.sh.
package audit
