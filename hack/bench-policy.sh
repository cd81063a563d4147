#!/usr/bin/env bash
# Benchmarks what admission costs a pod create in a real kube-apiserver
# v1.36.3, in one run: no winkube admission, the default export
# (winkube policy export: ValidatingAdmissionPolicies in enforce mode;
# "validating-only"), the export with --fixes (plus the
# MutatingAdmissionPolicy; "policies"), and winkube's webhook
# (mutating and validating, in the test process on 127.0.0.1). Sequential
# and 8 concurrent creates of a Windows pod every check evaluates and of a
# Linux-pinned pod the policies' match conditions skip; p50, p90 and p99
# per case, and the p99 added over no admission at the same concurrency.
#
# What each policy costs in CEL alone (CPU per admission, no HTTP, no
# etcd): hack/controlplane/policycost.
#
#   hack/bench-policy.sh            # 400 creates per case
#   N=1000 hack/bench-policy.sh
#
# Not part of make test; figures go to docs/performance.md ("## policy").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
N=${N:-400}

bash hack/build-controlplane.sh >&2
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
$GO test ./test/e2e/policy -run '^$' -bench PodCreateAdmission -benchtime "${N}x" 2>&1 | grep -E '^(Benchmark|ok|FAIL|PASS|goos|goarch|cpu)' 
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
