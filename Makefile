# pisess: see README.md. Every target works on a fresh machine with Go,
# Node.js and npm.

SHELL     := bash
GO        ?= go
BIN       ?= bin/pisess
# Fuzzing budgets are counts, not durations: with a duration, Go 1.26's
# fuzz coordinator can fail a target with "context deadline exceeded" at
# the end of its time on a busy machine (golang/go#75804, fixed in Go
# 1.27). FUZZTIME_CMD is for the targets that run the binary.
FUZZTIME     ?= 100000x
FUZZTIME_CMD ?= 600x
CORPUS    ?= testdata/corpus
DEMO_FILE ?= testdata/corpus/valid/v3-everything.jsonl

.PHONY: all build test unit short fuzz ccusage deps conformance-repairs conformance reliability demo bench vet clean

all: build

build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/pisess

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
	$(GO) test ./internal/parse -run '^$$' -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/parse -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/validate -run '^$$' -fuzz '^FuzzTapeAgrees$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/parse -run '^$$' -fuzz '^FuzzStrPrefix$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/session -run '^$$' -fuzz '^FuzzReadHeader$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/edit -run '^$$' -fuzz '^FuzzEditRoundTrip$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
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

# The repairs' results (unstick, slim, fork, recover-header) loaded by pi
# 1.6.0's own code: about a minute, so CI runs it after make test.
conformance-repairs: conformance/node_modules/.package-lock.json
	set -o pipefail; PISESS_CONFORMANCE=1 $(GO) test ./internal/fix -run Conformance -count=1 -v | grep -vE '^=== RUN|: (unsupported|refused)'

# What the tests install (the pinned pi and omp packages), once; .ci/run
# runs it before make test, which then only checks it is up to date.
deps: conformance/node_modules/.package-lock.json conformance/omp/node_modules/.package-lock.json
	$(GO) mod download

test: vet unit conformance fuzz

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
	GO=$(GO) bench/ccusage/run.sh
	GO=$(GO) bench/perentry.sh $(PERENTRY_BASE) HEAD

# pisess audit beside ccusage (npm, pinned) on the real corpus: per-session
# totals, every difference explained, and both timed (docs/performance.md).
ccusage:
	GO=$(GO) bench/ccusage/run.sh

clean:
	rm -rf bin
