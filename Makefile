# Marquee: common tasks. `make run` and `make test` are all you need.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# The Go release Marquee is built with (go.mod requires it): the go command
# fetches it from the module proxy on first use and runs it from then on,
# whichever Go is installed. A machine's own Go ignores go.mod's version
# unless this is exported (GOTOOLCHAIN=local refuses instead).
export GOTOOLCHAIN := go1.27.3

# Go's default install location and installed tools, ahead of whatever PATH has.
GOROOT_BIN := $(wildcard /usr/local/go/bin)
GOPATH_BIN := $(shell PATH="$(GOROOT_BIN):$$PATH" GOTOOLCHAIN=$(GOTOOLCHAIN) go env GOPATH 2>/dev/null)
export PATH := $(GOROOT_BIN):$(if $(GOPATH_BIN),$(GOPATH_BIN)/bin:)$(PATH)
export BROWSERSLIST_IGNORE_OLD_DATA := 1

DEVDB := scripts/devdb.sh

# use_db: set and export DATABASE_URL (the environment's if it answers, else a
# local or private Postgres) and say which one, without its password.
use_db = DATABASE_URL="$$($(DEVDB))"; export DATABASE_URL; \
	echo "database: $$(sed -E 's|(://[^:/@]*):[^@/]*@|\1:****@|' <<<"$$DATABASE_URL")"

# golangci-lint is pinned in its own module file, so its dependencies stay out
# of go.mod; `go tool` builds it once into Go's build cache.
LINT := go tool -modfile=golangci.mod golangci-lint

.PHONY: help run admin test check lint bench bench-browser generate generate-check vendor db db-stop clean vulncheck

help:
	@echo "make run             serve http://localhost:8080 with demo data"
	@echo "make admin EMAIL=you@example.com NAME='Your Name'   a platform admin on the make run database"
	@echo "make test            generate-check, go test -race on every package (needs Postgres and chromium: set up if missing)"
	@echo "make check           the gates CI adds to make test: golangci-lint (with go vet), govulncheck, make fuzz"
	@echo "make lint            golangci-lint (.golangci.yml), pinned in golangci.mod"
	@echo "make vulncheck       govulncheck (pinned in vuln.mod) against Go's vulnerability database, built offline"
	@echo "make fuzz            run each fuzz target for a few seconds (FUZZTIME=3s)"
	@echo "make bench           run the booking benchmark (cmd/bench)"
	@echo "make bench-browser   run the show page benchmark of big halls in Chromium (cmd/bench -browser)"
	@echo "make generate        templ, vendored htmx, the Tailwind CSS build and migrations/schema.sql"
	@echo "make generate-check  fail if generated files are not committed and current"
	@echo "make db              print the development database URL"
	@echo "make db-stop         stop the private Postgres in ./.data"
	@echo "make clean           stop it and remove ./.data"

# A platform admin on the database `make run` serves (the password is asked
# for, or MARQUEE_ADMIN_PASSWORD).
admin:
	@test -n "$(EMAIL)" && test -n "$(NAME)" || { echo "usage: make admin EMAIL=you@example.com NAME='Your Name'" >&2; exit 2; }
	@$(use_db); exec go run ./cmd/marquee admin create --email "$(EMAIL)" --name "$(NAME)"

# Sandbox Pay is the payment provider here; `marquee serve` has none unless told.
run:
	@$(use_db); PAYMENTS=sandbox exec go run ./cmd/marquee serve --demo

# scripts/test.sh runs generate-check and go test -race on every package
# (the browser tests beside the rest), ordered to keep two cores busy; it
# installs Chromium if missing, while generate-check runs.
test:
	@MAKE="$(MAKE)" scripts/test.sh

# check: the gates CI runs after make test. They build tools of their own
# (golangci-lint alone is some minutes of compiling on a fresh machine) and
# the fuzzing builds every package again with its instrumentation, so they
# are kept out of the tests a developer runs after each change.
check: lint vulncheck fuzz

lint:
	@echo "golangci-lint run ./... (with govet)"; $(LINT) run ./...

# The vulnerability gate. The online database cannot be reached, so it is
# built from the OSV files of golang.org/x/vulndb at VULNDB (from the module
# proxy) into .data/vulndb, once per version; govulncheck, pinned in
# vuln.mod, reads it there. Any vulnerability the code reaches fails, but
# the accepted ones in scripts/vulncheck (see docs/reliability.md).
VULNDB := golang.org/x/vulndb@v0.0.0-20261105234957-e22db6528018

vulncheck:
	@echo "govulncheck ./..."; go run ./scripts/vulncheck -vulndb $(VULNDB) -cache .data/vulndb -modfile vuln.mod ./...

# fuzz runs each fuzz target (every func FuzzX in a _test.go file) for
# FUZZTIME with one worker, two targets at a time (go test -fuzz takes one
# target per run, and building and replaying the corpus take a second or
# two of each run). `make fuzz FUZZTIME=5m` hunts longer. The seed corpora,
# testdata/fuzz/, run with every go test.
FUZZTIME ?= 3s

.PHONY: fuzz
fuzz:
	@grep -rH --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*(' cmd internal web \
		| sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*|./\1:\2|' | sort \
		| xargs -P 2 -I '{}' bash -c '\
		pkg="$${1%%:*}"; name="$${1##*:}"; \
		out="$$(go test -run "^$$" -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -parallel 1 "$$pkg" 2>&1)"; status=$$?; \
		printf "go test -run ^$$ -fuzz ^%s\$$ -fuzztime %s %s\n%s\n" "$$name" "$(FUZZTIME)" "$$pkg" "$$(grep -v "^fuzz: elapsed" <<<"$$out")"; \
		exit $$status' _ '{}'

bench:
	@$(use_db); RATE_LIMITS=off exec go run ./cmd/bench

bench-browser:
	@scripts/chromium.sh
	@$(use_db); exec go run ./cmd/bench -browser

# The front end (templ components, htmx, Tailwind) may not exist yet: each
# step runs only when its inputs are there. node_modules comes from
# package-lock.json (npm ci); what the app serves is copied or built into
# static/ and committed, so a build of the Go binary needs no npm at all.
# migrations/schema.sql is the schema the migrations add up to, dumped from a
# scratch database on the development server (scripts/devdb.sh starts one
# if none answers), for reading.
generate:
	@if [ -n "$$(find . \( -name .git -o -name node_modules -o -name .data \) -prune -o -name '*.templ' -print -quit)" ]; then \
		echo "go tool templ generate"; go tool templ generate; \
	fi
	@if [ -f package.json ]; then \
		$(MAKE) --no-print-directory vendor; \
		echo "tailwindcss -> static/css/app.css"; \
		npx --no-install tailwindcss -c tailwind.config.js -i web/styles/input.css -o static/css/app.css --minify; \
	fi
	@$(use_db); echo "schemadump -> migrations/schema.sql"; go run ./scripts/schemadump -o migrations/schema.sql

# vendor copies htmx and its websocket extension, and the barcode-detector
# polyfill (the door's scanner where the browser has no BarcodeDetector)
# with the ZXing WebAssembly it loads, at the versions package-lock.json
# pins, into static/vendor: nothing is loaded from a CDN.
vendor: node_modules/.package-lock.json
	@mkdir -p static/vendor
	@cp node_modules/htmx.org/dist/htmx.min.js static/vendor/htmx.min.js
	@cp node_modules/htmx-ext-ws/dist/ws.js static/vendor/ws.js
	@cp node_modules/barcode-detector/dist/iife/ponyfill.js static/vendor/barcode-detector.js
	@cp node_modules/zxing-wasm/dist/reader/zxing_reader.wasm static/vendor/zxing_reader.wasm
	@echo "vendored htmx $$(node -p 'require("./node_modules/htmx.org/package.json").version'), htmx-ext-ws $$(node -p 'require("./node_modules/htmx-ext-ws/package.json").version') and barcode-detector $$(node -p 'require("./node_modules/barcode-detector/package.json").version') -> static/vendor"

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

generate-check: generate
	@if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		echo "generate-check: not a git checkout, skipped"; exit 0; \
	fi; \
	changes="$$(git status --porcelain -- '*_templ.go' static/css static/vendor migrations/schema.sql)"; \
	if [ -n "$$changes" ]; then \
		echo "$$changes" >&2; \
		echo "generate-check: generated files are missing or stale; run 'make generate' and commit them." >&2; \
		exit 1; \
	fi

db:
	@$(DEVDB)

db-stop:
	@$(DEVDB) stop

clean: db-stop
	rm -rf .data
