# shellcheck shell=bash
# Sourced by hack/ensure-chromium.sh and hack/ensure-tools.sh, which define
# die and log.

# apt_install PACKAGE HINT installs Debian's PACKAGE with apt-get (through
# sudo when not root), refreshing the package lists and retrying once when
# the first install fails. HINT says what to do where apt-get is missing.
apt_install() {
	local pkg=$1 hint=$2 sudo=()
	command -v apt-get >/dev/null 2>&1 || die "$pkg is missing and apt-get is not available; $hint"
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "$pkg is missing; installing it needs root (run as root or install sudo)"
		sudo=(sudo)
	fi
	log "installing Debian's $pkg package ..."
	export DEBIAN_FRONTEND=noninteractive
	if ! "${sudo[@]}" apt-get install -y --no-install-recommends "$pkg" >&2; then
		log "install failed; refreshing the package lists and retrying"
		"${sudo[@]}" apt-get update >&2 || die "apt-get update failed"
		"${sudo[@]}" apt-get install -y --no-install-recommends "$pkg" >&2 || die "apt-get install $pkg failed"
	fi
}
