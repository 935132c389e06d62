#!/usr/bin/env bash
# chromium.sh: make sure Debian's chromium is installed for the browser tests
# (web/browser_test.go drives /usr/bin/chromium through chromedp).
#
# Fast when it is there already: one file test, no package manager.
# Otherwise, as root on a system with apt-get, it installs the "chromium"
# package; anywhere else it says what to do and exits 1.
#
# Usage:
#   scripts/chromium.sh            install if missing, print the version
#
# Environment:
#   CHROMIUM   the browser to check (default /usr/bin/chromium)
set -euo pipefail

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

log() { printf 'chromium: %s\n' "$*" >&2; }

version() {
	# Debian's /usr/bin/chromium is a wrapper script that may complain on
	# stderr about its environment; the version is on stdout.
	"$CHROMIUM" --version 2>/dev/null | head -n1 || true
}

if [ -x "$CHROMIUM" ]; then
	log "$(version || echo "$CHROMIUM") at $CHROMIUM"
	exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	log "$CHROMIUM is missing, and this script can install it only as root on a"
	log "system with apt-get. Install Debian's chromium package yourself, e.g."
	log "    sudo apt-get update && sudo apt-get install -y chromium"
	log "or set CHROMIUM to another Chromium or Chrome binary."
	exit 1
fi

log "$CHROMIUM is missing: installing Debian's chromium package (takes a minute)"
export DEBIAN_FRONTEND=noninteractive
# One apt-get at a time: make test runs this beside scripts/devdb.sh, which
# may be installing Postgres (it takes the same lock), and anything else
# holding dpkg's lock (an unattended upgrade) is waited for too.
exec 9>/tmp/marquee-apt.lock
if ! flock -w 600 9; then
	log "another apt-get held /tmp/marquee-apt.lock for ten minutes"
	exit 1
fi
lock=(-o DPkg::Lock::Timeout=300)
apt-get "${lock[@]}" update -qq >&2 9>&-
# Without its recommends (udev, upower, Mesa's drivers, a notification
# daemon, the printer settings): headless with --disable-gpu needs none of
# them, and they are most of the unpacking. Its recommended fonts are kept,
# so pages are measured in the fonts a moviegoer's browser would have.
apt-get "${lock[@]}" install -y -qq --no-install-recommends chromium fonts-liberation >&2 9>&-
if [ ! -x "$CHROMIUM" ]; then
	log "installed the chromium package, but $CHROMIUM is still missing"
	exit 1
fi
log "installed $(version) at $CHROMIUM"
