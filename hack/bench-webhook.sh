#!/usr/bin/env bash
# Benchmarks the admission webhook: hack/loadgen starts
# `winkube webhook serve` on 127.0.0.1 and sends a mix of AdmissionReviews
# (Linux and Windows pods and Deployments, to /mutate and /validate) at a
# fixed rate over keep-alive TLS connections, rotates the certificate
# mid-run, and ends with SIGTERM while requests are in flight. Each run
# prints client p50/p99/max, the server's p99 from its /metrics histogram,
# failures (there must be none), the rotation and the shutdown.
#
#   hack/bench-webhook.sh                  # 1,000/s for 20s, 5,000/s for 10s, then pod creates through kube-apiserver
#   SKIP_APISERVER=1 hack/bench-webhook.sh # the load runs only
#
# The load generator and the server share the machine's cores: the
# figures include that contention. Not part of make test; figures go to
# docs/performance.md ("## webhook").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench-webhook: building" >&2
$GO build -o "$tmp/winkube" ./cmd/winkube
$GO build -o "$tmp/winkube-loadgen" ./hack/loadgen

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
status=0
for run in "1000 20s 2 8" "5000 10s 2 16"; do
	read -r rate duration rotations connections <<<"$run"
	echo
	echo "== winkube-loadgen -rate $rate -duration $duration -rotations $rotations -connections $connections"
	"$tmp/winkube-loadgen" -winkube "$tmp/winkube" -rate "$rate" -duration "$duration" -rotations "$rotations" -connections "$connections" \
		-server-log "$tmp/server-$rate.log" || status=1
	echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done

if [[ -z ${SKIP_APISERVER:-} ]]; then
	echo
	echo "== pod creates through kube-apiserver v1.36.3, without and with the webhook (test/e2e/webhook/bench_test.go)"
	bash hack/build-controlplane.sh >&2
	$GO test ./test/e2e/webhook -run '^$' -bench PodCreateThroughAPIServer -benchtime 500x || status=1
fi
exit $status
