#!/usr/bin/env bash
# devdb.sh: a Postgres database that is always there.
#
# Prints ONE line on stdout, a connection URL for a database named "marquee";
# everything else goes to stderr. Tried in order:
#
#   1. $DATABASE_URL, printed unchanged if the server answers (nothing is
#      created in it).
#   2. A server on 127.0.0.1:5432 that lets user "postgres" in without a
#      password; database "marquee" is created there if missing.
#   3. A private cluster in ./.data/pg (port 54329, 127.0.0.1 only, trust
#      auth, log in ./.data/pg.log), created and started as needed. If
#      Postgres is missing and we are root on a Debian-like system, the
#      "postgresql" package is installed first.
#
# Usage:
#   scripts/devdb.sh          print the URL (start things as needed)
#   scripts/devdb.sh stop     stop the private cluster if it runs
#
# Environment:
#   DATABASE_URL       see step 1
#   DEVDB_PRIVATE=1    skip steps 1 and 2 and always use the private cluster
#
# Postgres refuses to run as root, so when run as root the private cluster
# belongs to the "postgres" user and is driven through runuser.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
DATA="$ROOT/.data"
PGDATA_DIR="$DATA/pg"
PGLOG="$DATA/pg.log"
DB=marquee
LOCAL_PORT=5432
PRIVATE_PORT=54329
LOCAL_URL="postgres://postgres@127.0.0.1:$LOCAL_PORT/$DB?sslmode=disable"
PRIVATE_URL="postgres://postgres@127.0.0.1:$PRIVATE_PORT/$DB?sslmode=disable"

export PGCONNECT_TIMEOUT=3

log() { printf 'devdb: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# DATABASE_URL is checked with the caller's PG* variables (the server sees
# them too); the local servers must not be redirected by them.
clear_pg_env() {
	unset PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGPASSFILE \
		PGSERVICE PGSERVICEFILE PGOPTIONS PGSSLMODE PGREQUIRESSL PGTARGETSESSIONATTRS
}

# as_pg runs a command as the user that owns the private cluster.
as_pg() {
	if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

# ---------------------------------------------------------------- binaries

PGBIN=""   # directory with initdb/pg_ctl/postgres, "" if none
PSQL=""    # psql client, "" if none

# Debian's per-version binary directories, newest first.
versioned_bin_dirs() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -d "$d" ] && echo "$d"
	done | sort -V -r
}

find_bins() {
	PGBIN="" PSQL=""
	local want="" d
	# An existing cluster must keep running with its own major version.
	if [ -s "$PGDATA_DIR/PG_VERSION" ] 2>/dev/null; then
		want=$(cat "$PGDATA_DIR/PG_VERSION" 2>/dev/null || true)
	fi
	if [ -n "$want" ] && [ -x "/usr/lib/postgresql/$want/bin/pg_ctl" ]; then
		PGBIN="/usr/lib/postgresql/$want/bin"
	else
		for d in $(versioned_bin_dirs); do
			if [ -x "$d/pg_ctl" ]; then PGBIN=$d; break; fi
		done
	fi
	if [ -z "$PGBIN" ] && command -v pg_ctl >/dev/null 2>&1; then
		PGBIN=$(dirname "$(command -v pg_ctl)")
	fi
	if [ -n "$PGBIN" ] && [ -x "$PGBIN/psql" ]; then
		PSQL="$PGBIN/psql"
	else
		for d in $(versioned_bin_dirs); do
			if [ -x "$d/psql" ]; then PSQL="$d/psql"; break; fi
		done
		# /usr/bin/psql may be a wrapper script left without a real client.
		if [ -z "$PSQL" ] && command -v psql >/dev/null 2>&1 &&
			psql --version >/dev/null 2>&1; then
			PSQL=$(command -v psql)
		fi
	fi
}

# install_postgres installs Debian's postgresql package (server and client)
# when we are allowed to; returns non-zero otherwise.
install_postgres() {
	if ! is_root || ! command -v apt-get >/dev/null 2>&1; then
		return 1
	fi
	log "installing postgresql with apt-get (one time)..."
	# Checked explicitly: callers use this in a condition, where set -e is off.
	# make test may be installing Chromium at the same time
	# (scripts/chromium.sh takes the same lock): one apt-get at a time.
	exec 9>/tmp/marquee-apt.lock
	flock -w 600 9 || die "another apt-get held /tmp/marquee-apt.lock for ten minutes"
	if ! apt-get -o DPkg::Lock::Timeout=300 update >&2 9>&- ||
		! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y postgresql >&2 9>&-; then
		die "apt-get could not install postgresql: install it by hand or set DATABASE_URL"
	fi
	exec 9>&-
	find_bins
}

need_server_bins() {
	if [ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -n "$PSQL" ]; then
		return 0
	fi
	install_postgres || die "Postgres is not installed and this user cannot install it: set DATABASE_URL or install postgresql"
	if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ] || [ -z "$PSQL" ]; then
		die "postgresql was installed but initdb/psql were not found"
	fi
}

# ---------------------------------------------------------------- probes

# q CONNINFO SQL: run one query, print the result, quietly.
q() { "$PSQL" -X -w -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2" 2>/dev/null; }

# tcp_open HOST PORT
tcp_open() { timeout 3 bash -c ": </dev/tcp/$1/$2" 2>/dev/null; }

# url_answers URL: does the server behind URL accept us?
url_answers() {
	local url=$1
	if [ -n "$PSQL" ]; then
		q "$url" 'select 1' >/dev/null
		return
	fi
	if [ -n "$PGBIN" ] && [ -x "$PGBIN/pg_isready" ]; then
		"$PGBIN/pg_isready" -q -t 3 -d "$url"
		return
	fi
	# No client tools at all: check that the TCP port is open.
	local host="" port=5432 rest
	case $url in
	postgres://* | postgresql://*)
		rest=${url#*://}
		rest=${rest%%[/?]*}
		rest=${rest##*@}
		case $rest in
		\[*\]:*) host=${rest%%]*}; host=${host#[}; port=${rest##*]:} ;;
		\[*\]) host=${rest#[}; host=${host%]} ;;
		*:*) host=${rest%%:*}; port=${rest##*:} ;;
		*) host=$rest ;;
		esac
		;;
	*)
		[[ $url =~ (^|[[:space:]])host=([^[:space:]]+) ]] && host=${BASH_REMATCH[2]}
		[[ $url =~ (^|[[:space:]])port=([0-9]+) ]] && port=${BASH_REMATCH[2]}
		;;
	esac
	[ -n "$host" ] || host=localhost
	if [ "${host#/}" != "$host" ]; then
		[ -S "$host/.s.PGSQL.$port" ]
		return
	fi
	log "no Postgres client tools here: only checking that $host:$port is open"
	tcp_open "$host" "$port"
}

# ensure_db ADMIN_CONNINFO: create database "marquee" if missing.
ensure_db() {
	local admin=$1
	if [ "$(q "$admin" "select 1 from pg_database where datname = '$DB'")" = 1 ]; then
		return 0
	fi
	log "creating database $DB"
	if ! q "$admin" "create database $DB" >/dev/null; then
		# Someone else may have created it at the same time.
		[ "$(q "$admin" "select 1 from pg_database where datname = '$DB'")" = 1 ] ||
			die "could not create database $DB"
	fi
}

# ---------------------------------------------------------------- private cluster

# sock_dir: a unix socket directory whose socket path stays under 100 bytes.
sock_dir() {
	local d="$DATA/run"
	if [ $((${#d} + 16)) -lt 100 ] && [[ $d != *"'"* ]]; then
		echo "$d"
	else
		echo "/tmp/marquee-devdb-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
	fi
}

private_cluster_runs() {
	[ -f "$PGDATA_DIR/postmaster.pid" ] && [ -n "$PGBIN" ] &&
		as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1
}

# private_check: 0 if our cluster answers with database marquee, 1 if nothing
# answers; dies if another cluster holds the port.
private_check() {
	local dir
	dir=$(q "$PRIVATE_URL" 'show data_directory') || return 1
	[ "$dir" = "$PGDATA_DIR" ] && return 0
	die "port $PRIVATE_PORT is taken by another Postgres (data directory $dir); stop it or set DATABASE_URL"
}

# make_traversable: the postgres user must reach $DATA through every parent.
make_traversable() {
	local d=$ROOT
	local dirs=()
	while [ "$d" != / ] && [ -n "$d" ]; do
		dirs=("$d" "${dirs[@]}")
		d=$(dirname "$d")
	done
	for d in "${dirs[@]}"; do
		if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then
			log "chmod o+x $d (so the postgres user can reach $DATA)"
			chmod o+x "$d"
		fi
	done
}

private_start() {
	need_server_bins
	local sock
	sock=$(sock_dir)

	mkdir -p "$DATA"
	if is_root; then
		id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user to run the private cluster"
		chmod 755 "$DATA"
		make_traversable
	fi
	mkdir -p "$sock"
	touch "$PGLOG"
	if is_root; then
		chown postgres: "$sock" "$PGLOG"
	fi

	if [ ! -s "$PGDATA_DIR/PG_VERSION" ]; then
		log "creating private cluster in $PGDATA_DIR (log: $PGLOG)"
		rm -rf "$PGDATA_DIR"
		mkdir -p "$PGDATA_DIR"
		if is_root; then chown postgres: "$PGDATA_DIR"; fi
		chmod 700 "$PGDATA_DIR"
		as_pg "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust \
			--encoding=UTF8 --locale=C >>"$PGLOG" 2>&1 ||
			die "initdb failed; see $PGLOG"
		echo "include_if_exists = 'devdb.conf'" | as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null
		find_bins
	fi
	# Rewritten on every start so a moved checkout keeps working.
	as_pg tee "$PGDATA_DIR/devdb.conf" >/dev/null <<-EOF
		# Written by scripts/devdb.sh.
		listen_addresses = '127.0.0.1'
		port = $PRIVATE_PORT
		unix_socket_directories = '$sock'
		max_connections = 200
	EOF

	if ! private_cluster_runs; then
		log "starting private cluster on 127.0.0.1:$PRIVATE_PORT"
		# 9>&-: the server must not inherit (and hold) our lock.
		as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGLOG" -w -t 60 start >/dev/null 2>&1 9>&- ||
			die "the private cluster did not start; see $PGLOG"
	fi
}

private_url() {
	if [ -n "$PSQL" ] && private_check; then
		echo "$PRIVATE_URL"
		return
	fi
	# One caller at a time past this point (two `make` runs starting together).
	mkdir -p "$DATA"
	if command -v flock >/dev/null 2>&1; then
		exec 9>>"$DATA/devdb.lock"
		flock 9
	fi
	if ! private_cluster_runs || [ -z "$PSQL" ]; then
		private_start
	fi
	local admin="postgresql://postgres@127.0.0.1:$PRIVATE_PORT/postgres?sslmode=disable"
	local i
	for ((i = 0; i < 120; i++)); do
		q "$admin" 'select 1' >/dev/null && break
		sleep 0.25
	done
	local dir
	dir=$(q "$admin" 'show data_directory') ||
		die "the private cluster does not answer on 127.0.0.1:$PRIVATE_PORT; see $PGLOG"
	[ "$dir" = "$PGDATA_DIR" ] ||
		die "port $PRIVATE_PORT is taken by another Postgres (data directory $dir); stop it or set DATABASE_URL"
	ensure_db "$admin"
	echo "$PRIVATE_URL"
}

private_stop() {
	clear_pg_env
	find_bins
	if private_cluster_runs; then
		log "stopping private cluster in $PGDATA_DIR"
		as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >/dev/null
	else
		log "private cluster is not running"
	fi
	local sock
	sock=$(sock_dir)
	case $sock in /tmp/marquee-devdb-*) rm -rf "$sock" ;; esac
}

# ---------------------------------------------------------------- main

main() {
	find_bins

	if [ "${DEVDB_PRIVATE:-}" != 1 ]; then
		# 1. DATABASE_URL
		if [ -n "${DATABASE_URL:-}" ]; then
			if url_answers "$DATABASE_URL"; then
				echo "$DATABASE_URL"
				return
			fi
			log "WARNING: DATABASE_URL is set but its server does not answer; falling back to a local database"
		fi

		# 2. postgres@127.0.0.1:5432 without a password
		clear_pg_env
		if [ -z "$PSQL" ] && tcp_open 127.0.0.1 "$LOCAL_PORT"; then
			# Something listens there; we need psql to check it and create the database.
			install_postgres || die "a server listens on 127.0.0.1:$LOCAL_PORT but psql is not installed to check it: install postgresql-client or set DATABASE_URL"
		fi
		if [ -n "$PSQL" ]; then
			if PGPASSFILE=/dev/null q "$LOCAL_URL" 'select 1' >/dev/null; then
				echo "$LOCAL_URL"
				return
			fi
			local admin="postgresql://postgres@127.0.0.1:$LOCAL_PORT/postgres?sslmode=disable"
			if PGPASSFILE=/dev/null q "$admin" 'select 1' >/dev/null; then
				PGPASSFILE=/dev/null ensure_db "$admin"
				echo "$LOCAL_URL"
				return
			fi
		fi
	fi

	# 3. private cluster
	clear_pg_env
	private_url
}

case "${1:-}" in
"") main ;;
stop) private_stop ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2 ;;
*) die "usage: $0 [stop]" ;;
esac
