#!/usr/bin/env bash
# Benchmarks `winkube simulate` against the real kube-scheduler, as recorded
# in docs/performance.md ("## simulate"):
#   - winkube: 100,000 pods on 5,000 nodes (wall time, pods/s, peak heap,
#     and the process's peak RSS from /usr/bin/time -v);
#   - winkube on 5,000 pods / 500 nodes, the real scheduler's size;
#   - the real kube-scheduler v1.36.3 (test/controlplane) placing 5,000
#     pods on 500 nodes with raised client limits.
# and prints both rates and their ratio. Not part of `make test`.
#
# Usage: hack/bench-simulate.sh            (SIM_BENCHTIME=3x REAL_BENCHTIME=1x)
set -euo pipefail

die() {
	echo "ERROR: bench-simulate: $*" >&2
	exit 1
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIM_BENCHTIME=${SIM_BENCHTIME:-3x}
REAL_BENCHTIME=${REAL_BENCHTIME:-1x}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

command -v go >/dev/null 2>&1 || die "go is not on PATH"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian: apt-get install time)"

bash "$ROOT/hack/build-controlplane.sh" >/dev/null || die "cannot build the control plane"
(cd "$ROOT" && go test -c -o "$WORK/simulate.test" ./internal/simulate && go test -c -o "$WORK/bench.test" ./test/bench) || die "cannot build the benchmarks"
cd "$ROOT/internal/simulate"

echo "== winkube simulate (benchtime $SIM_BENCHTIME)"
/usr/bin/time -v "$WORK/simulate.test" -test.run '^$' -test.bench '^BenchmarkSimulate(Small)?$' \
	-test.benchtime "$SIM_BENCHTIME" -test.benchmem >"$WORK/sim.txt" 2>"$WORK/time.txt" ||
	{ cat "$WORK/sim.txt" "$WORK/time.txt" >&2; die "simulate benchmark failed"; }
grep '^Benchmark' "$WORK/sim.txt"
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")

echo "== winkube simulate --full-scoring (benchtime 1x)"
"$WORK/simulate.test" -test.run '^$' -test.bench '^BenchmarkSimulateFullScoring$' \
	-test.benchtime 1x >"$WORK/full.txt" 2>&1 ||
	{ cat "$WORK/full.txt" >&2; die "full-scoring benchmark failed"; }
grep '^Benchmark' "$WORK/full.txt"

echo "== real kube-scheduler (benchtime $REAL_BENCHTIME)"
"$WORK/bench.test" -test.run '^$' -test.bench '^BenchmarkRealScheduler$' \
	-test.benchtime "$REAL_BENCHTIME" >"$WORK/real.txt" 2>"$WORK/real.err" ||
	{ grep -v '^[IEW][0-9]' "$WORK/real.txt" "$WORK/real.err" | tail -40 >&2; die "real scheduler benchmark failed"; }
grep '^Benchmark' "$WORK/real.txt"

# metric FILE BENCHMARK UNIT: the value reported before UNIT on the line.
metric() {
	awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }' "$1"
}
sim=$(metric "$WORK/sim.txt" BenchmarkSimulate pods/s)
simns=$(metric "$WORK/sim.txt" BenchmarkSimulate ns/op)
heap=$(metric "$WORK/sim.txt" BenchmarkSimulate peak-heap-MiB)
small=$(metric "$WORK/sim.txt" BenchmarkSimulateSmall pods/s)
fullns=$(metric "$WORK/full.txt" BenchmarkSimulateFullScoring ns/op)
real=$(metric "$WORK/real.txt" BenchmarkRealScheduler pods/s)
[[ -n $sim && -n $small && -n $real ]] || die "could not read the benchmark figures"

echo
echo "== summary ($(nproc) CPUs, $(go env GOVERSION))"
awk -v full="$fullns" -v sim="$sim" -v ns="$simns" -v heap="$heap" -v rss="$rss" -v small="$small" -v real="$real" 'BEGIN {
	printf "winkube simulate, 5,000 nodes / 100,000 pods: %.2f s, %.0f pods/s, peak heap %.0f MiB, peak RSS %.0f MiB\n", ns / 1e9, sim, heap, rss / 1024
	printf "  the same with --full-scoring:                  %.2f s (%.1fx the default)\n", full / 1e9, full / ns
	printf "winkube simulate, 500 nodes / 5,000 pods:     %.0f pods/s\n", small
	printf "real kube-scheduler, 500 nodes / 5,000 pods:  %.0f pods/s\n", real
	printf "ratio winkube (100k pods) / real scheduler:    %.0fx\n", sim / real
	printf "ratio winkube / real scheduler, same size:     %.0fx\n", small / real
}'
