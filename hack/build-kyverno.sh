#!/usr/bin/env bash
# Builds the Kyverno CLI the policy tests run the exported Kyverno policies
# with (test/e2e/policy TestKyvernoAgreesWithLint):
#   kyverno   github.com/kyverno/kyverno $KYVERNO_VERSION, cmd/cli/kubectl-kyverno
# into ${WINKUBE_CACHE:-$HOME/.cache/winkube}/tools/kyverno-$KYVERNO_VERSION.
#
# Kyverno's go.mod has replace directives, so `go install module@version`
# refuses it; its source is taken from the Go module proxy (go mod download)
# and built as the main module with its own go.mod and go.sum, which the
# proxy serves every dependency of. A cold build is long (about 50 minutes
# on 2 cores): it is done once and cached; nothing is rebuilt when the
# binary reports the expected version.
#
# The last line on stdout is the binary's path. Any failure exits non-zero
# with a message starting "ERROR:".
set -euo pipefail

KYVERNO_VERSION=v1.19.1 # keep in sync with internal/policy KyvernoVersion

die() {
	echo "ERROR: build-kyverno: $*" >&2
	exit 1
}
log() { echo "build-kyverno: $*" >&2; }

command -v go >/dev/null 2>&1 || die "go is not on PATH"
CACHE=${WINKUBE_CACHE:-${HOME:?HOME is not set}/.cache/winkube}
TOOLS=$CACHE/tools
BIN=$TOOLS/kyverno-$KYVERNO_VERSION
mkdir -p "$TOOLS" || die "cannot create $TOOLS"

# The version is read whole before it is matched: `| grep -q` would stop
# reading at the first match, the CLI would die of SIGPIPE writing its
# next line, and pipefail would call an up-to-date binary stale (it did,
# now and then, and rebuilt it).
ok() {
	[[ -x $BIN ]] || return 1
	local v
	v=$("$BIN" version 2>/dev/null) || return 1
	[[ $v == *"${KYVERNO_VERSION#v}"* ]]
}
if ok; then
	log "up to date: $BIN"
	echo "$BIN"
	exit 0
fi

exec 9>"$TOOLS/.kyverno.lock"
command -v flock >/dev/null 2>&1 && flock 9
if ok; then # built by another run while this one waited
	echo "$BIN"
	exit 0
fi

log "downloading github.com/kyverno/kyverno@$KYVERNO_VERSION from the Go module proxy ..."
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/kyverno/kyverno@$KYVERNO_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -n $dir && -f $dir/go.mod ]] || die "go mod download github.com/kyverno/kyverno@$KYVERNO_VERSION gave no source directory"

# The module cache is read-only: build in a copy, as the main module.
cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
log "building the CLI (cmd/cli/kubectl-kyverno; long, once) ..."
(cd "$work/src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
	-ldflags "-X github.com/kyverno/kyverno/pkg/version.BuildVersion=$KYVERNO_VERSION" \
	-o "$BIN.tmp" ./cmd/cli/kubectl-kyverno) >&2 || die "go build of the Kyverno CLI failed (see above; a module the proxy refuses is named there)"
mv "$BIN.tmp" "$BIN"
ok || die "$BIN does not report version $KYVERNO_VERSION"
echo "$BIN"
