# pisess: see README.md. Every target works on a fresh machine with Go,
# Node.js and npm.

SHELL     := bash
GO        ?= go
BIN       ?= bin/pisess
# Fuzzing budgets are counts, not durations: with a duration, Go 1.26's
# fuzz coordinator can fail a target with "context deadline exceeded" at
# the end of its time on a busy machine (golang/go#75804, fixed in Go
# 1.27). FUZZTIME_CMD is for the targets that run the binary. make test's
# budgets keep it within its five minutes on a slow 2-core host; longer
# runs: make fuzz FUZZTIME=2000000x FUZZTIME_CMD=20000x (README).
FUZZTIME     ?= 50000x
FUZZTIME_CMD ?= 600x
CORPUS    ?= testdata/corpus
DEMO_FILE ?= testdata/corpus/valid/v3-everything.jsonl

.PHONY: all build test unit short fuzz ccusage deps conformance-repairs conformance reliability demo bench vet clean cross licenses licenses-check release release-check

all: build

# The version, commit and commit date are stamped in from git (these
# machines set GOFLAGS=-buildvcs=false, which leaves them out of the build
# information); outside a checkout pisess falls back to that information.
VERSION = $(shell git describe --tags --always --dirty 2>/dev/null)
COMMIT  = $(shell git rev-parse HEAD 2>/dev/null)
DATE    = $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS = -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)

build:
	$(GO) build -buildvcs=auto -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/pisess

# The release's other platforms (linux/amd64 is vet's): the packages and
# their tests are vetted for the two that carry the most platform code
# (Windows, and macOS on Apple silicon), the rest are compiled, two at a
# time. `make test` fails when any of them stops building. 2 shared cores:
# 11 s with a warm build cache (15 s one at a time), 280 s cold (a fresh
# GOCACHE: the standard library for five more platforms).
CROSS_VET   ?= windows/amd64 darwin/arm64
CROSS_BUILD ?= windows/arm64 darwin/amd64 linux/arm64
cross:
	@$(MAKE) --no-print-directory -j2 $(addprefix cross-vet/,$(CROSS_VET)) $(addprefix cross-build/,$(CROSS_BUILD))

cross-vet/%: FORCE
	GOOS=$(word 1,$(subst /, ,$*)) GOARCH=$(word 2,$(subst /, ,$*)) $(GO) vet ./...

cross-build/%: FORCE
	GOOS=$(word 1,$(subst /, ,$*)) GOARCH=$(word 2,$(subst /, ,$*)) $(GO) build ./...

FORCE:

# The third-party licences the release carries (THIRD_PARTY_LICENSES,
# committed); licenses-check fails when the dependencies changed since.
licenses:
	scripts/third-party-licenses.sh > THIRD_PARTY_LICENSES

licenses-check:
	scripts/third-party-licenses.sh --check

# Release archives for the six platforms, checksums, a Homebrew formula and
# a Scoop manifest, built offline into dist/ (nothing is published). The
# pinned GoReleaser is installed from the Go module proxy when missing
# (about 6 minutes the first time). Not part of make test.
GORELEASER_VERSION ?= v2.15.1
GORELEASER ?= $(shell $(GO) env GOPATH)/bin/goreleaser

$(GORELEASER):
	$(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release: $(GORELEASER)
	PISESS_COMMIT=$(COMMIT) PISESS_DATE=$(DATE) PISESS_SHORT=$$(git rev-parse --short HEAD) $(GORELEASER) release --snapshot --clean

release-check: $(GORELEASER)
	$(GORELEASER) check

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# Every package but the adversarial suite (a line per package as it
# passes), then the suite with its bounded defaults, showing its progress.
unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v '/internal/hostile$$')
	set -o pipefail; $(GO) test -count=1 -v ./internal/hostile | grep --line-buffered -vE '^(=== (RUN|PAUSE|CONT|NAME) |\s*$$|\s+--- (PASS|SKIP): )'

# The quick loop while coding: -short skips the large inputs.
short:
	$(GO) test -short ./...

# Bounded fuzzing of the parser, repair and migration (regressions live in
# each package's testdata/fuzz).
fuzz:
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/validate -run '^$$' -fuzz '^FuzzTapeAgrees$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzStrPrefix$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzUnquote$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzReadHeader$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzEditRoundTrip$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/fix -run '^$$' -fuzz '^FuzzPlaceholders$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/grep -run '^$$' -fuzz '^FuzzPrefilter$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/hostile -run '^$$' -fuzz '^FuzzRepair$$' -fuzztime $(FUZZTIME_CMD) -fuzzminimizetime 5s
	$(GO) test ./internal/hostile -run '^$$' -fuzz '^FuzzMigrate$$' -fuzztime $(FUZZTIME_CMD) -fuzzminimizetime 5s

# The adversarial suite's long run (docs/reliability.md): more sources cut
# at every byte offset, 2000 byte-flipped variants of each, 500 SIGKILLs per
# rewriting command. `make test` runs the same suite with bounded defaults.
# The figures land in bin/reliability.md.
reliability:
	mkdir -p bin
	PISESS_HOSTILE_LONG=1 PISESS_HOSTILE_REPORT=$(CURDIR)/bin/reliability.md $(GO) test ./internal/hostile -count=1 -timeout 90m -v

# Our projection and migration against pi's own code, two pinned pis side
# by side: pi 1.6.0 (the reference for projection) and pi 0.73.1 (installed
# with npm ci, again only when the lockfile changed). Prints the pairs
# compared per pi (bin/conformance.txt). Then oh-my-pi files against
# omp 18's own code, run by the Bun that conformance/omp installs
# (bin/conformance-omp.txt).
conformance/node_modules/.package-lock.json: conformance/package-lock.json
	cd conformance && npm ci --ignore-scripts --no-audit --no-fund

# npm install --no-save, not npm ci: the registry reached here lacks the
# other platforms' optional omp binaries, which npm ci insists on; the
# committed lockfile still pins every version and is left unchanged.
conformance/omp/node_modules/.package-lock.json: conformance/omp/package-lock.json
	cd conformance/omp && npm install --no-save --ignore-scripts --no-audit --no-fund

conformance: conformance/node_modules/.package-lock.json conformance/omp/node_modules/.package-lock.json
	mkdir -p bin
	PISESS_CONFORMANCE=1 PISESS_CONFORMANCE_REPORT=$(CURDIR)/bin/conformance.txt $(GO) test ./internal/project -run '^TestConformance$$' -count=1
	@cat bin/conformance.txt
	PISESS_CONFORMANCE=1 PISESS_CONFORMANCE_REPORT=$(CURDIR)/bin/conformance-omp.txt $(GO) test ./internal/project -run '^TestOmpConformance$$' -count=1
	@cat bin/conformance-omp.txt

# The repairs' results (unstick, slim, slim --rewrite, fork, recover-header)
# loaded by pi 1.6.0's own code, and moved sessions found by pi where it
# looks (move): a minute or two, so CI runs it after make test.
conformance-repairs: conformance/node_modules/.package-lock.json
	set -o pipefail; PISESS_CONFORMANCE=1 $(GO) test ./internal/fix ./internal/sessdir -run Conformance -count=1 -v | grep -vE '^=== RUN|: (unsupported|refused)'

# What the tests install (the pinned pi and omp packages), once; .ci/run
# runs it before make test, which then only checks it is up to date.
# It also fills the build cache for the five other platforms (make cross),
# so that make test's cross step costs seconds on a fresh machine too.
deps: conformance/node_modules/.package-lock.json conformance/omp/node_modules/.package-lock.json
	$(GO) mod download
	@$(MAKE) --no-print-directory cross

test: vet cross licenses-check unit conformance fuzz

demo: build
	$(BIN) audit $(CORPUS) || true
	$(BIN) tree $(DEMO_FILE)
	$(BIN) context $(DEMO_FILE)

# Benchmarks side by side with pi's own loader, ajv and jq (installs the
# pinned Node.js side with npm ci; data in bench/out). BENCH=quick takes
# about 1.5 minutes, the full run 10-13 (2 cores) plus 1 minute to generate
# its data the first time. See docs/performance.md.
BENCH ?= full
# bench/perentry.sh: validate's cost per entry, PERENTRY_BASE beside HEAD.
PERENTRY_BASE ?= main
bench:
	BENCH=$(BENCH) GO=$(GO) bench/run.sh
	BENCH=$(BENCH) GO=$(GO) bench/du.sh
	BENCH=$(BENCH) GO=$(GO) bench/huge.sh
	GO=$(GO) bench/ccusage/run.sh
	GO=$(GO) bench/perentry.sh $(PERENTRY_BASE) HEAD

# pisess audit beside ccusage (npm, pinned) on the real corpus: per-session
# totals, every difference explained, and both timed (docs/performance.md).
ccusage:
	GO=$(GO) bench/ccusage/run.sh

clean:
	rm -rf bin dist man completions
