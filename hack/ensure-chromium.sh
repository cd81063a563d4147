#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed for the HTML report
# tests (internal/simulate/html_test.go), which render the report in it.
#
# Idempotent: when chromium (or $WINKUBE_CHROMIUM) already runs, nothing is
# installed. Otherwise Debian's chromium package is installed with apt-get,
# which needs root (or sudo). The last line on stdout is the binary's path.
# Any failure exits non-zero with a message starting "ERROR:".
set -euo pipefail

die() {
	echo "ERROR: ensure-chromium: $*" >&2
	exit 1
}
log() { echo "ensure-chromium: $*" >&2; }

# found prints the path of a working chromium, or fails.
found() {
	local c
	for c in "${WINKUBE_CHROMIUM:-}" /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
		[[ -n $c && -x $c ]] || continue
		"$c" --version >/dev/null 2>&1 || continue
		echo "$c"
		return 0
	done
	return 1
}

if bin=$(found); then
	log "up to date: $("$bin" --version 2>/dev/null)"
	echo "$bin"
	exit 0
fi

# shellcheck source=hack/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
apt_install chromium "install Chromium and set WINKUBE_CHROMIUM to its path"

bin=$(found) || die "chromium was installed but does not run: $(/usr/bin/chromium --version 2>&1 | head -3)"
log "installed: $("$bin" --version 2>/dev/null)"
echo "$bin"
