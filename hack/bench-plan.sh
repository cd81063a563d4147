#!/usr/bin/env bash
# Benchmarks `winkube plan` from files on a generated estate, with
# `winkube simulate` of the target cluster file over the same estate as
# the peer measured in the same run (a plan simulates the current and the
# target cluster, lints both and simulates the migration's interim
# clusters; issue 23 asks for under 5 s and about 2x one simulate):
#
#   estate    test/corpusgen seed 23, 5,432 objects: 2,000 workloads
#             (Deployments, StatefulSets, DaemonSets; 640 Windows), one
#             file per application (hack/gencorpus)
#   cluster   120 Linux nodes, Windows Server 2022 (60) and 2019 (30)
#             pools tainted os=windows:NoSchedule, Kubernetes 1.33 (the
#             cluster of internal/plan's BenchmarkPlan)
#   changes   --set-pool win2022:build=10.0.26100 (WS2022 -> WS2025)
#             --kubernetes-version 1.34           (1.33 -> 1.34)
#
# Each command runs REPEAT times under /usr/bin/time; the script prints
# each run's wall and CPU (user+sys) seconds and peak RSS, the best of
# each, the load average before and after, and plan's ratio to the peer.
#
#   hack/bench-plan.sh             # REPEAT=5
#   REPEAT=3 KEEP=1 hack/bench-plan.sh
#   BASELINE=/tmp/winkube-old hack/bench-plan.sh   # also time another
#                                  # build's plan in the same run, e.g.
#                                  # git archive REV | tar -x -C DIR &&
#                                  # (cd DIR && go build -o /tmp/winkube-old ./cmd/winkube)
#
# Not part of make test. Figures go to docs/performance.md ("## plan").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
REPEAT=${REPEAT:-5}

die() {
	echo "bench-plan: $*" >&2
	exit 1
}

command -v "$GO" >/dev/null 2>&1 || die "go is not on PATH"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian: apt-get install time)"

tmp=$(mktemp -d)
if [[ -z ${KEEP:-} ]]; then trap 'rm -rf "$tmp"' EXIT; else echo "bench-plan: keeping $tmp" >&2; fi

echo "bench-plan: building" >&2
$GO build -o "$tmp/winkube" ./cmd/winkube
$GO build -o "$tmp/gencorpus" ./hack/gencorpus

echo "bench-plan: generating the estate" >&2
"$tmp/gencorpus" -n 5432 -seed 23 -dir "$tmp/estate"

# cluster FILE VERSION WIN2022BUILD: the estate's cluster.
cluster() {
	cat >"$1" <<EOF
apiVersion: winkube.io/v1alpha1
kind: Cluster
name: bench
kubernetesVersion: "$2"
pools:
- {name: linux, count: 120, os: linux, cpu: "16", memory: 64Gi, maxPods: 110}
- name: win2022
  count: 60
  os: windows
  windowsBuild: $3
  cpu: "16"
  memory: 64Gi
  maxPods: 110
  taints: [{key: os, value: windows, effect: NoSchedule}]
- name: win2019
  count: 30
  os: windows
  windowsBuild: 10.0.17763
  cpu: "16"
  memory: 64Gi
  maxPods: 110
  taints: [{key: os, value: windows, effect: NoSchedule}]
EOF
}
cluster "$tmp/current.yaml" 1.33 10.0.20348
cluster "$tmp/ws2025.yaml" 1.33 10.0.26100
cluster "$tmp/k134.yaml" 1.34 10.0.20348

# bench NAME CMD...: REPEAT timed runs; appends "NAME wall cpu rss" per
# run to $tmp/runs. plan exits 1 when the change breaks a workload, and
# simulate when pods stay pending: only 2 (a tool failure) is an error.
bench() {
	local name=$1 i rc
	shift
	for ((i = 0; i < REPEAT; i++)); do
		rc=0
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
		if ((rc > 1)); then
			tail -20 "$tmp/err" >&2
			die "$name exited $rc"
		fi
		# GNU time puts "Command exited with non-zero status 1" first.
		tail -n 1 "$tmp/time" | awk -v n="$name" '{printf "%s %.2f %.2f %.0f\n", n, $1, $2 + $3, $4 / 1024}' | tee -a "$tmp/runs"
	done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench-plan: $REPEAT runs each (name, wall s, cpu s, peak RSS MiB); load average $load_before" >&2
w=$tmp/winkube
bench plan-ws2025 "$w" plan --cluster "$tmp/current.yaml" --set-pool win2022:build=10.0.26100 -o json "$tmp/estate"
bench simulate-ws2025 "$w" simulate --cluster "$tmp/ws2025.yaml" -o json "$tmp/estate"
bench plan-k134 "$w" plan --cluster "$tmp/current.yaml" --kubernetes-version 1.34 -o json "$tmp/estate"
bench simulate-k134 "$w" simulate --cluster "$tmp/k134.yaml" -o json "$tmp/estate"
if [[ -n ${BASELINE:-} ]]; then
	[[ -x $BASELINE ]] || die "BASELINE=$BASELINE is not an executable"
	bench baseline-ws2025 "$BASELINE" plan --cluster "$tmp/current.yaml" --set-pool win2022:build=10.0.26100 -o json "$tmp/estate"
	bench baseline-k134 "$BASELINE" plan --cluster "$tmp/current.yaml" --kubernetes-version 1.34 -o json "$tmp/estate"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "== summary ($(nproc) CPUs, $($GO env GOVERSION), load average $load_before before, $load_after after; best of $REPEAT)"
awk '
	{ if (!($1 in wall) || $2 < wall[$1]) wall[$1] = $2
	  if (!($1 in cpu) || $3 < cpu[$1]) cpu[$1] = $3
	  if ($4 > rss[$1]) rss[$1] = $4 }
	END {
		split("ws2025 k134", c, " ")
		label["ws2025"] = "WS2022 -> WS2025 (--set-pool win2022:build=10.0.26100)"
		label["k134"] = "1.33 -> 1.34 (--kubernetes-version 1.34)"
		for (i = 1; i <= 2; i++) {
			p = "plan-" c[i]; s = "simulate-" c[i]
			printf "%s\n", label[c[i]]
			printf "  winkube plan:              %6.2f s wall, %6.2f s CPU, %4d MiB peak RSS\n", wall[p], cpu[p], rss[p]
			printf "  winkube simulate (target): %6.2f s wall, %6.2f s CPU, %4d MiB peak RSS\n", wall[s], cpu[s], rss[s]
			printf "  ratio plan / simulate:     %6.2fx wall, %5.2fx CPU\n", wall[p] / wall[s], cpu[p] / cpu[s]
			b = "baseline-" c[i]
			if (b in wall) {
				printf "  baseline plan (BASELINE):  %6.2f s wall, %6.2f s CPU, %4d MiB peak RSS\n", wall[b], cpu[b], rss[b]
				printf "  speed-up over baseline:    %6.2fx wall, %5.2fx CPU\n", wall[b] / wall[p], cpu[b] / cpu[p]
			}
		}
	}' "$tmp/runs"
