#!/usr/bin/env bash
# Benchmarks image resolution against go-containerregistry's in-process
# registry on 127.0.0.1 (hack/imagebench):
#
#   1,000 unique references, cold (empty cache) and again from the cache
#   (--offline), with the process's peak RSS;
#   winkube lint of the 10,000-object corpus (test/corpusgen, seed 1)
#   with every image moved onto the local registry: without
#   --resolve-images, and with it on a warm cache (--offline).
#
#   hack/bench-images.sh            # best of 3 (REPEAT=5 for 5)
#
# Not part of make test: benchmarks run on demand. Figures go to
# docs/performance.md ("## images").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
REPEAT=${REPEAT:-3}

if ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "bench-images: GNU time is missing (apt-get install time)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$tmp"' EXIT

echo "bench-images: building" >&2
$GO build -o "$tmp/winkube" ./cmd/winkube
$GO build -o "$tmp/gencorpus" ./hack/gencorpus
$GO build -o "$tmp/imagebench" ./hack/imagebench

echo "== 1,000 unique references (best of $REPEAT)"
for ((i = 0; i < REPEAT; i++)); do
	"$tmp/imagebench" -n 1000
done

echo "== lint, 10,000 objects"
"$tmp/gencorpus" -n 10000 -dir "$tmp/c10k"
# The registry keeps serving while stdin (fd 3's pipe) stays open.
mkfifo "$tmp/hold"
"$tmp/imagebench" -corpus "$tmp/c10k" -out "$tmp/local" -cache "$tmp/cache" <"$tmp/hold" >"$tmp/host" &
exec 3>"$tmp/hold"
for ((i = 0; i < 600; i++)); do [[ -s $tmp/host ]] && break; sleep 0.1; done
host=$(cat "$tmp/host")
[[ -n $host ]] || { echo "bench-images: the local registry did not start" >&2; exit 2; }

lint() { # label args...
	local label=$1 best="" w
	shift
	for ((i = 0; i < REPEAT; i++)); do
		/usr/bin/time -v -o "$tmp/time" "$tmp/winkube" lint --fail-on none -o json "$@" "$tmp/local" >"$tmp/out" 2>"$tmp/err" || true
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time")
		rss=$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$tmp/time")
		if [[ -z $best ]] || awk -v a="$w" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$w bestrss=$rss; fi
	done
	findings=$(grep -c '"rule"' "$tmp/out" || true)
	unresolved=$(grep -c '"image-unresolved"' "$tmp/out" || true)
	printf '%-40s %6.2f s  %5d MB  findings %s (image-unresolved %s)\n' "$label" "$best" "$bestrss" "$findings" "$unresolved"
}
lint "lint" 
lint "lint --resolve-images (warm, --offline)" --resolve-images --offline --insecure-registry "$host" --registry-cache "$tmp/cache"
lint "lint --resolve-images (warm cache, TTL)" --resolve-images --insecure-registry "$host" --registry-cache "$tmp/cache"
