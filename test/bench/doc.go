// Package bench is the hybrid cluster and workload mix the simulate
// benchmarks share, and the benchmark of the real kube-scheduler placing
// that mix (hack/bench-simulate.sh compares the two).
package bench
