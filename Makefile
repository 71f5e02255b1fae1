# pisess: see README.md. Every target works on a fresh machine with Go,
# Node.js and npm.

GO        ?= go
BIN       ?= bin/pisess
FUZZTIME  ?= 20s
CORPUS    ?= testdata/corpus
DEMO_FILE ?= testdata/corpus/valid/v3-everything.jsonl

.PHONY: all build test unit fuzz conformance demo bench vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/pisess

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test ./...

# Bounded fuzzing of the parser (regressions live in testdata/fuzz).
fuzz:
	$(GO) test ./internal/parse -run '^$$' -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME)

# Our projection against pi's own buildSessionContext (installs the pinned
# pi package with npm ci).
conformance:
	cd conformance && npm ci --ignore-scripts --no-audit --no-fund
	PISESS_CONFORMANCE=1 $(GO) test ./internal/project -run Conformance -count=1

test: vet unit conformance fuzz

demo: build
	$(BIN) audit $(CORPUS) || true
	$(BIN) tree $(DEMO_FILE)
	$(BIN) context $(DEMO_FILE)

bench:
	$(GO) test ./internal/... -run '^$$' -bench . -benchmem

clean:
	rm -rf bin
