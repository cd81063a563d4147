// Package bench is what winkube's benchmarks share: the hybrid cluster and
// workload mix of the simulate benchmarks, the benchmark of the real
// kube-scheduler placing that mix (hack/bench-simulate.sh compares the
// two), and the timed pod creates through a real API server that the
// webhook and policy benchmarks compare admission by.
package bench
