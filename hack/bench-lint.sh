#!/usr/bin/env bash
# Benchmarks winkube lint against kube-score on generated hybrid corpora,
# in one run on one machine, and the loader's parts on their own:
#
#   winkube lint --fail-on none    the whole tool
#   kube-score score               github.com/zegl/kube-score v1.20.0
#   typed decode                   sigs.k8s.io/yaml + client-go's scheme
#   yaml.v3 node parse             the bare parse winkube used to do
#   split                          cutting the stream into documents
#   fast parse, winkube decode     winkube's loader without the rules
#
# Corpora (test/corpusgen, seed 1): 10,000 and 50,000 objects as one
# file per application, and 10,000 objects as one 26 MB file. Each tool
# runs under /usr/bin/time -v for wall time, CPU time and peak RSS.
#
#   hack/bench-lint.sh            # all of it, about 15 minutes (kube-score
#                                 # is quadratic: 50k objects take 7 minutes)
#   REPEAT=5 hack/bench-lint.sh   # best of 5 for winkube and the loader
#                                 # parts (default 3; kube-score runs once)
#   KEEP=1 hack/bench-lint.sh     # keep the temporary folder
#
# Not part of make test: benchmarks run on demand. Figures go to
# docs/performance.md ("## lint").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
REPEAT=${REPEAT:-3}

# /usr/bin/time -v gives peak RSS; Debian's "time" package provides it.
if ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "bench-lint: installing GNU time (apt-get install time)" >&2
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >&2; then
		echo "bench-lint: cannot install GNU time; install the Debian package \"time\"" >&2
		exit 2
	fi
fi

tmp=$(mktemp -d)
if [[ -z ${KEEP:-} ]]; then trap 'rm -rf "$tmp"' EXIT; else echo "bench-lint: keeping $tmp" >&2; fi

echo "bench-lint: building" >&2
$GO build -o "$tmp/winkube" ./cmd/winkube
$GO build -o "$tmp/gencorpus" ./hack/gencorpus
$GO test -c -o "$tmp/manifest.test" ./internal/manifest

echo "bench-lint: generating corpora" >&2
"$tmp/gencorpus" -n 10000 -dir "$tmp/c10k"
"$tmp/gencorpus" -n 50000 -dir "$tmp/c50k"
"$tmp/gencorpus" -n 10000 -file "$tmp/c10k.yaml"
"$tmp/gencorpus" -n 50000 -file "$tmp/c50k.yaml"

# kube-score, cached in $GOPATH/bin.
kubescore="$($GO env GOPATH)/bin/kube-score"
if [[ ! -x $kubescore ]]; then
	echo "bench-lint: installing kube-score v1.20.0" >&2
	if ! $GO install github.com/zegl/kube-score/cmd/kube-score@v1.20.0 >"$tmp/kube-score-install.log" 2>&1; then
		echo "bench-lint: KUBE-SCORE INSTALL FAILED; its rows are skipped. go install said:" >&2
		sed 's/^/    /' "$tmp/kube-score-install.log" >&2
		kubescore=""
	fi
fi

# run1 CMD...: one timed run into $tmp/time, $tmp/out and $tmp/err.
run1() {
	/usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || true
}

# best N CMD...: the fastest of N runs (on a shared machine the slower
# ones measure the neighbours), leaving its files in place.
best() {
	local n=$1 i w bestw=""
	shift
	for ((i = 0; i < n; i++)); do
		run1 "$@"
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time")
		if [[ -z $bestw ]] || awk -v a="$w" -v b="$bestw" 'BEGIN {exit !(a < b)}'; then
			bestw=$w
			cp "$tmp/time" "$tmp/time.best"
			cp "$tmp/out" "$tmp/out.best"
			cp "$tmp/err" "$tmp/err.best"
		fi
	done
	mv "$tmp/time.best" "$tmp/time"
	mv "$tmp/out.best" "$tmp/out"
	mv "$tmp/err.best" "$tmp/err"
}

# measure NAME OBJECTS RUNS CMD...: runs CMD under time -v (best of RUNS)
# and prints a row. Exit codes are ignored (both linters exit non-zero on
# findings), but a tool that did not run at all is reported.
measure() {
	local name=$1 objects=$2 runs=$3
	shift 3
	best "$runs" "$@"
	if ! grep -q 'Elapsed (wall clock)' "$tmp/time" || [[ ! -s $tmp/out ]]; then
		printf '%-34s failed: %s\n' "$name" "$(head -c 300 "$tmp/err")"
		return
	fi
	local wall cpu rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$tmp/time")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2 / 1024}' "$tmp/time")
	# A benchmark reports its own objects/s (its setup is not the work).
	local rate
	rate=$(awk '/objects\/s/ {for (i = 1; i < NF; i++) if ($(i + 1) == "objects/s") print $i}' "$tmp/out" | tail -1)
	[[ -n $rate ]] || rate=$(awk -v n="$objects" -v w="$wall" 'BEGIN {printf "%.0f", n / w}')
	local us
	us=$(awk '{for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-µs/object") print $i}' "$tmp/out" | tail -1)
	if [[ -z $us && $objects -gt 0 ]]; then
		us=$(awk -v c="$cpu" -v n="$objects" 'BEGIN {printf "%.0f", c * 1e6 / n}')
	fi
	[[ -n $us ]] || us="-"
	printf '%-36s %9.0f objects/s %7.2f s wall %7.2f s cpu %6s cpu-µs/object %6.0f MB peak RSS\n' "$name" "$rate" "$wall" "$cpu" "$us" "$rss"
	echo "$rate" >"$tmp/rate.$name"
}

# lintrun NAME OBJECTS PATH: winkube lint, checking it read every object.
lintrun() {
	measure "$1" "$2" "$REPEAT" "$tmp/winkube" lint --fail-on none -q "$3"
	if ! tail -1 "$tmp/out" | grep -q " in $2 objects "; then
		echo "bench-lint: winkube did not read all $2 objects of $3: $(tail -1 "$tmp/out")" >&2
		exit 1
	fi
}

# bench NAME CORPUS BENCHMARK: a loader benchmark, one pass over the corpus
# per run, best of REPEAT runs.
bench() {
	measure "$1" 0 "$REPEAT" env WINKUBE_BENCH_CORPUS="$2" "$tmp/manifest.test" -test.run '^$' -test.bench "^$3\$" -test.benchtime 1x
}

ratio() {
	local w k
	w=$(cat "$tmp/rate.$1" 2>/dev/null || true)
	k=$(cat "$tmp/rate.$2" 2>/dev/null || true)
	if [[ -n $w && -n $k ]]; then
		awk -v w="$w" -v k="$k" -v n="$3" 'BEGIN {printf "%-34s %10.1f x\n", "winkube/kube-score " n, w / k}'
	fi
}

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for c in 10k 50k; do
	n=$((${c%k} * 1000))
	lintrun "winkube lint $c (files)" "$n" "$tmp/c$c"
	if [[ -n $kubescore ]]; then
		mapfile -t files < <(find "$tmp/c$c" -name '*.yaml' | sort)
		measure "kube-score score $c (files)" "$n" 1 "$kubescore" score --output-format ci "${files[@]}"
	fi
done
lintrun "winkube lint 10k (one 26 MB file)" 10000 "$tmp/c10k.yaml"
if [[ -n $kubescore ]]; then
	measure "kube-score score 10k (one file)" 10000 1 "$kubescore" score --output-format ci "$tmp/c10k.yaml"
fi
lintrun "winkube lint 50k (one file)" 50000 "$tmp/c50k.yaml"
# The Go collector's default (GOGC=100) costs a third of lint's CPU: the
# loader allocates about 30 KB per object, all of it short-lived.
GOGC=400 lintrun "winkube lint 10k (files) GOGC=400" 10000 "$tmp/c10k"
GOGC=400 lintrun "winkube lint 50k (files) GOGC=400" 50000 "$tmp/c50k"
echo
bench "split 10k" "$tmp/c10k.yaml" BenchmarkSplit
bench "yaml.v3 node parse 10k" "$tmp/c10k.yaml" BenchmarkYAMLv3Node
bench "typed decode (client-go) 10k" "$tmp/c10k.yaml" BenchmarkTypedScheme
bench "winkube fast parse 10k" "$tmp/c10k.yaml" BenchmarkParseFast
bench "winkube decode 10k" "$tmp/c10k.yaml" BenchmarkDecode
echo
ratio "winkube lint 10k (files)" "kube-score score 10k (files)" "10k files"
ratio "winkube lint 50k (files)" "kube-score score 50k (files)" "50k files"
ratio "winkube lint 10k (one 26 MB file)" "kube-score score 10k (one file)" "10k one file"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
