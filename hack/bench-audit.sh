#!/usr/bin/env bash
# Benchmarks `winkube audit -A -o json` and `winkube doctor -A -o json`
# against a real kube-apiserver v1.36.3 (test/controlplane) holding the
# issue's cluster: 2,000 nodes (a third Windows), 50,000 pods in 1,000
# Deployments and 100,000 events, as recorded in docs/performance.md
# ("## audit and doctor"). In the same run it times
# `kubectl get pods,events -A -o json > /dev/null` as the floor and prints
# the ratios and each process's peak RSS. Not part of `make test`.
#
# Usage: hack/bench-audit.sh                 (full size)
#        WINKUBE_BENCH_SCALE=0.25 hack/bench-audit.sh   (a quarter of it)
#        KUBECTL=/path/to/kubectl hack/bench-audit.sh  (default /usr/bin/kubectl)
#        WINKUBE_BENCH_KUBELETS=200 hack/bench-audit.sh  (also serve 200 Windows
#          nodes' kubelets on a veth pair, as root, and time audit --node-reads=direct
#          against plain audit in WINKUBE_BENCH_ROUNDS rounds, default 6, of
#          alternating order; medians and each order's median ratio)
#        WINKUBE_BENCH_HOLD=FILE hack/bench-audit.sh  (fill the cluster, write its
#          kubeconfig to FILE, the kubelets' CA to FILE.kubelet-ca, and keep it up
#          until FILE is removed; times nothing)
#        WINKUBE_BENCH_CLUSTER=FILE hack/bench-audit.sh  (time against the cluster
#          a WINKUBE_BENCH_HOLD run holds; WINKUBE_BENCH_AUDIT_ONLY=1 times audit only)
set -euo pipefail

die() {
	echo "ERROR: bench-audit: $*" >&2
	exit 1
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v go >/dev/null 2>&1 || die "go is not on PATH"
[[ -x ${KUBECTL:-/usr/bin/kubectl} ]] || die "kubectl not found at ${KUBECTL:-/usr/bin/kubectl} (set KUBECTL)"
bash "$ROOT/hack/build-controlplane.sh" >/dev/null || die "cannot build the control plane"
cd "$ROOT"
go test ./test/bench/audit -run '^$' -bench BenchmarkAuditLive -benchtime 1x -timeout 90m -v
