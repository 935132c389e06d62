#!/usr/bin/env bash
# test.sh: `make test`. generate-check, then go test -race on every package
# against a real Postgres, the browser tests in headless Chromium among them.
#
# Two cores are the budget, so the order keeps both busy from the first
# second to the last:
#
#   - Chromium is installed first, in the background, if it is missing (on a
#     fresh machine, downloaded and unpacked while templ, Tailwind and the
#     schema dump run in the foreground);
#   - web/pages, the browser tests, is the longest package by far. It starts
#     in the background as soon as Chromium is there, so it is not left
#     running alone at the end;
#   - every other package runs in the foreground meanwhile, four at a time
#     with four parallel tests each (they too wait on browsers, timers and
#     webhooks); pgtest shares the server's connections among all the test
#     processes;
#   - go vet's checks are left to make check, which runs all of them.
#
# The tests pass on a busy machine (docs/reliability.md), which is what
# running them beside each other asks of them. web/pages' output is kept in
# .data/test-pages.log and printed when it ends; any failure fails the run.
#
# The static checks and the fuzzing (golangci-lint, govulncheck, make fuzz)
# are `make check`, which CI runs after this.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

make=${MAKE:-make}
# go vet's checks run in make check (golangci-lint's govet, all of them),
# so go test's own subset is not run a second time here: on a fresh
# machine it is half a minute of the two cores. A package's tests may take
# most of the run: cmd/marquee's fault tests wait for the test server's
# connections while the browser tests hold them (760 s of a 987 s run), so
# the timeout is a hang's, not a slow machine's.
gotest=(go test -race -vet=off -count=1 -timeout 30m)
mkdir -p .data
rm -f .data/chromium.ready .data/chromium.failed

# Each background job gets its own process group (set -m), so that a
# failure in the foreground can stop it whole.
set -m
{
	if scripts/chromium.sh; then
		touch .data/chromium.ready
	else
		touch .data/chromium.failed
	fi
} >.data/chromium.log 2>&1 &
chromium=$!
set +m
pages=
stop() {
	kill -- -$chromium 2>/dev/null || true
	[ -z "$pages" ] || kill -- -$pages 2>/dev/null || true
}
trap stop EXIT

"$make" --no-print-directory generate-check

# The test processes share one server's connections (internal/pgtest
# reserves them). A stock server's 100 leave 77 for the tests, and a fault
# test's app with its background jobs takes 60 of them: it then waits until
# nearly every other test is done. Unless DATABASE_URL names a server, the
# tests run on the private cluster, which allows 200.
if [ -z "${DATABASE_URL:-}" ]; then
	export DEVDB_PRIVATE=1
fi
DATABASE_URL="$(scripts/devdb.sh)"
export DATABASE_URL
echo "database: $(sed -E 's|(://[^:/@]*):[^@/]*@|\1:****@|' <<<"$DATABASE_URL")"

set -m
{
	while [ ! -e .data/chromium.ready ]; do
		[ ! -e .data/chromium.failed ] || exit 1
		sleep 1
	done
	# Two scenarios at a time: more only adds waiting on Chromium, which
	# is most of what they cost (four: 403 core-seconds; two: 380).
	"${gotest[@]}" -parallel 2 ./web/pages
} >.data/test-pages.log 2>&1 &
pages=$!
set +m

mapfile -t packages < <(go list ./... | grep -v '/web/pages$')
echo "${gotest[*]} -p 4 -parallel 4 ./... (web/pages in the background, from when Chromium is there)"
"${gotest[@]}" -p 4 -parallel 4 "${packages[@]}"

# A test built only without the race detector (//go:build !race: it
# measures a heap peak, which the detector's shadow memory distorts and its
# instrumentation makes minutes long) runs here, once, without it.
mapfile -t norace < <(grep -rl --include='*_test.go' '^//go:build !race' cmd internal web)
if [ ${#norace[@]} -gt 0 ]; then
	tests="$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*/\1/p' "${norace[@]}" | paste -sd'|')"
	mapfile -t dirs < <(printf './%s\n' "${norace[@]%/*}" | sort -u)
	echo "go test -count=1 -run '^($tests)\$' ${dirs[*]} (without -race)"
	go test -count=1 -run "^($tests)\$" "${dirs[@]}"
fi

status=0
wait $pages || status=$?
trap - EXIT
cat .data/chromium.log
echo "${gotest[*]} -parallel 2 ./web/pages"
cat .data/test-pages.log
exit $status
