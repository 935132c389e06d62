#!/usr/bin/env bash
# test.sh: the checks and tests of `make test`, after generate-check.
#
# Two cores are the budget, so the order is chosen to keep both busy from
# the first second to the last:
#
#   - web/pages, the browser tests, is the longest package by far and spends
#     most of its time waiting on Chromium. It starts first, in the
#     background, as soon as Chromium is installed (on a fresh machine,
#     downloaded and unpacked while govulncheck and golangci-lint run), so it
#     is not left running alone at the end;
#   - govulncheck and golangci-lint (which runs go vet's analyzers) run in
#     the foreground meanwhile;
#   - then every other package, four at a time with four parallel tests
#     each (they too wait on browsers, timers and webhooks); pgtest shares
#     the server's connections among all the test processes;
#   - then each fuzz target for a few seconds (make fuzz), while web/pages
#     finishes.
#
# The tests pass on a busy machine (docs/reliability.md), which is what
# running them beside each other asks of them. web/pages' output is kept in
# .data/test-pages.log and printed when it ends; any failure fails the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

make=${MAKE:-make}
gotest=(go test -race -count=1 -parallel 4 -timeout 20m)
mkdir -p .data
rm -f .data/chromium.ready .data/chromium.failed

DATABASE_URL="$(scripts/devdb.sh)"
export DATABASE_URL
echo "database: $(sed -E 's|(://[^:/@]*):[^@/]*@|\1:****@|' <<<"$DATABASE_URL")"

# Its own process group (set -m), so that it can be stopped whole.
set -m
{
	if scripts/chromium.sh >.data/chromium.log 2>&1; then
		touch .data/chromium.ready
	else
		touch .data/chromium.failed
		exit 1
	fi
	"${gotest[@]}" ./web/pages
} >.data/test-pages.log 2>&1 &
pages=$!
set +m
# A failure in the foreground stops the browser tests too.
trap 'kill -- -$pages 2>/dev/null || true' EXIT

"$make" --no-print-directory vulncheck
"$make" --no-print-directory lint

while [ ! -e .data/chromium.ready ]; do
	if [ -e .data/chromium.failed ]; then
		cat .data/chromium.log >&2
		exit 1
	fi
	sleep 1
done
cat .data/chromium.log

mapfile -t packages < <(go list ./... | grep -v '/web/pages$')
echo "${gotest[*]} -p 4 ./... (web/pages in the background since the start)"
"${gotest[@]}" -p 4 "${packages[@]}"

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

"$make" --no-print-directory fuzz

status=0
wait $pages || status=$?
trap - EXIT
echo "${gotest[*]} ./web/pages"
cat .data/test-pages.log
exit $status
