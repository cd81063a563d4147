#!/usr/bin/env bash
# Builds the real control-plane binaries winkube's tests compare against:
#   kube-apiserver, kube-scheduler, kube-controller-manager
#                                   from k8s.io/kubernetes  (hack/controlplane)
#   etcd                            from go.etcd.io/etcd/server/v3 (hack/etcd)
#   nodeconfig-validate             hack/controlplane/nodeconfig-validate: the
#                                   kubelet's and kube-proxy's config validation
# into ${WINKUBE_CACHE:-$HOME/.cache/winkube}/controlplane/<kube version>/bin.
#
# Idempotent: when all the binaries exist and report the expected versions,
# nothing is built. Progress goes to stderr; the last line on stdout is the bin
# directory. Any failure exits non-zero with a message starting "ERROR:".
#
# A cold build takes several minutes on 2 cores (most of it kube-apiserver;
# kube-controller-manager, built last, shares most of its packages).
set -euo pipefail

KUBE_VERSION=v1.36.3 # keep in sync with hack/controlplane/go.mod
ETCD_VERSION=v3.6.8  # keep in sync with hack/etcd/go.mod

die() {
	echo "ERROR: build-controlplane: $*" >&2
	exit 1
}
log() { echo "build-controlplane: $*" >&2; }

trap 'rc=$?; if [[ $rc -ne 0 ]]; then echo "ERROR: build-controlplane: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; fi' EXIT

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${WINKUBE_CACHE:-${HOME:?HOME is not set}/.cache/winkube}
BIN=$CACHE/controlplane/$KUBE_VERSION/bin

command -v go >/dev/null 2>&1 || die "go is not on PATH"
[[ -f $ROOT/hack/controlplane/go.mod ]] || die "missing $ROOT/hack/controlplane/go.mod"
[[ -f $ROOT/hack/etcd/go.mod ]] || die "missing $ROOT/hack/etcd/go.mod"

# check_bin NAME EXPECTED: the binary exists, runs --version, and the output
# mentions EXPECTED.
check_bin() {
	local out
	[[ -x $BIN/$1 ]] || return 1
	out=$("$BIN/$1" --version 2>&1) || return 1
	[[ $out == *"$2"* ]] || return 1
}

all_ok() {
	check_bin kube-apiserver "Kubernetes $KUBE_VERSION" &&
		check_bin kube-scheduler "Kubernetes $KUBE_VERSION" &&
		check_bin kube-controller-manager "Kubernetes $KUBE_VERSION" &&
		check_bin etcd "etcd Version: ${ETCD_VERSION#v}" &&
		check_bin nodeconfig-validate "Kubernetes $KUBE_VERSION"
}

if all_ok; then
	log "up to date in $BIN"
	echo "$BIN"
	exit 0
fi

mkdir -p "$BIN" || die "cannot create $BIN"

# Serialize concurrent builds (e.g. several test packages starting at once).
exec 9>"$BIN/.build.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9 || die "cannot lock $BIN/.build.lock"
fi
if all_ok; then
	log "built concurrently by another process; up to date in $BIN"
	echo "$BIN"
	exit 0
fi

export CGO_ENABLED=0 GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false"

# Same version stamping as Kubernetes' hack/lib/version.sh.
kube_ldflags="-s -w"
major=${KUBE_VERSION#v}
major=${major%%.*}
minor=${KUBE_VERSION#v*.}
minor=${minor%%.*}
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
	kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
	kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

# build DIR PKG NAME LDFLAGS: build into a temp file, then move into place.
build() {
	local dir=$1 pkg=$2 name=$3 ldflags=$4 start
	start=$(date +%s)
	log "building $name from $pkg (this can take minutes) ..."
	(cd "$ROOT/hack/$dir" && go build -trimpath -ldflags="$ldflags" -o "$BIN/.$name.tmp" "$pkg") ||
		die "go build of $pkg (module hack/$dir) failed; see the compiler output above"
	mv -f "$BIN/.$name.tmp" "$BIN/$name" || die "cannot move $name into $BIN"
	log "built $name in $(($(date +%s) - start))s"
}

check_bin etcd "etcd Version: ${ETCD_VERSION#v}" ||
	build etcd go.etcd.io/etcd/server/v3 etcd "-s -w"
check_bin kube-scheduler "Kubernetes $KUBE_VERSION" ||
	build controlplane k8s.io/kubernetes/cmd/kube-scheduler kube-scheduler "$kube_ldflags"
check_bin kube-apiserver "Kubernetes $KUBE_VERSION" ||
	build controlplane k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "$kube_ldflags"
check_bin nodeconfig-validate "Kubernetes $KUBE_VERSION" ||
	build controlplane ./nodeconfig-validate nodeconfig-validate "$kube_ldflags"
check_bin kube-controller-manager "Kubernetes $KUBE_VERSION" ||
	build controlplane k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager "$kube_ldflags"

for spec in "kube-apiserver:Kubernetes $KUBE_VERSION" "kube-scheduler:Kubernetes $KUBE_VERSION" "kube-controller-manager:Kubernetes $KUBE_VERSION" "etcd:etcd Version: ${ETCD_VERSION#v}" "nodeconfig-validate:Kubernetes $KUBE_VERSION"; do
	name=${spec%%:*}
	check_bin "$name" "${spec#*:}" ||
		die "$BIN/$name was built but '$name --version' does not report '${spec#*:}': $("$BIN/$name" --version 2>&1 | head -3)"
done

log "done: $BIN"
echo "$BIN"
