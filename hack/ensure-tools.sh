#!/usr/bin/env bash
# Makes sure the release and hook tools the distribution tests run are here:
#   pre-commit   Debian's package (runs .pre-commit-hooks.yaml in a test)
#   goreleaser   v2.14.3 from the Go module proxy (checks .goreleaser.yaml),
#                built once into ${WINKUBE_CACHE:-~/.cache/winkube}/tools
#
# Idempotent: what is already there is not installed again. The last line on
# stdout is the tools folder. Any failure exits non-zero with "ERROR:".
set -euo pipefail

GORELEASER_VERSION=v2.14.3 # newer releases need a newer Go (v2.18) or a module the proxy refuses (v2.17: go-msix)

die() {
	echo "ERROR: ensure-tools: $*" >&2
	exit 1
}
log() { echo "ensure-tools: $*" >&2; }
# shellcheck source=hack/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

CACHE=${WINKUBE_CACHE:-${HOME:?HOME is not set}/.cache/winkube}
TOOLS=$CACHE/tools
mkdir -p "$TOOLS" || die "cannot create $TOOLS"

if command -v pre-commit >/dev/null 2>&1; then
	log "pre-commit up to date: $(pre-commit --version)"
else
	apt_install pre-commit "install pre-commit"
	command -v pre-commit >/dev/null 2>&1 || die "pre-commit was installed but is not on PATH"
fi

# Read the version whole before matching it (a `| grep -q` under pipefail
# can kill the tool with SIGPIPE and call it stale).
if [[ -x $TOOLS/goreleaser ]] && grv=$("$TOOLS/goreleaser" --version 2>/dev/null) && [[ $grv == *"${GORELEASER_VERSION#v}"* ]]; then
	log "goreleaser up to date in $TOOLS"
else
	log "building goreleaser $GORELEASER_VERSION from the Go module proxy (a few minutes, once) ..."
	exec 9>"$TOOLS/.build.lock"
	command -v flock >/dev/null 2>&1 && flock 9
	GOBIN=$TOOLS GOFLAGS=-mod=mod go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION" >&2 ||
		die "go install goreleaser $GORELEASER_VERSION failed"
fi
echo "$TOOLS"
