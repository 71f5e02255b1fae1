#!/usr/bin/env bash
# bench/run.sh: `make bench` (full: 10-13 minutes on 2 cores, plus about
# 1 minute to generate the data the first time) and `make bench
# BENCH=quick` (about 1.5 minutes). Method, machine and results:
# docs/performance.md.
#
# 1. installs the pinned Node.js side (bench/node: npm ci), builds pisess
#    and scripts/gen/sessiongen into $OUT;
# 2. generates the inputs into $OUT/data (kept between runs; a stamp file
#    says which command made each): one big session file and a directory
#    of sessions, replayed from the real pi files in $CORPUS;
# 3. runs the Go micro-benchmarks of the parser, the schema step, the
#    linkage step and the whole pass ($OUT/micro.txt);
# 4. times pisess validate, pi's own load path, ajv with our schemas and
#    jq on each input set, interleaved, and on the views sets (one file
#    each: the largest real file and a generated session of many small
#    entries) also pisess context, path and tree and pi 1.6.0's own load +
#    buildSessionContext ($OUT/results.md, $OUT/results.tsv).
#
# Environment: BENCH=full|quick, OUT (default bench/out), CORPUS (default
# ../shared/corpus/real; without it the inputs are generated from
# testdata/corpus/valid and the real files are not timed), ROUNDS.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${BENCH:-full}
OUT=${OUT:-bench/out}
CORPUS=${CORPUS:-../shared/corpus/real}
GO=${GO:-go}

case $MODE in
full)
	ROUNDS=${ROUNDS:-5}
	BIG="-files 1 -bytes 500MB -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
	DIR="-files 2000 -bytes 0.95GiB -seed 1"
	GIB="-files 1 -bytes 1GiB -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
	VIEWS="-files 1 -bytes 150MB -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
	BENCHTIME=1s
	;;
quick)
	ROUNDS=${ROUNDS:-3}
	BIG="-files 1 -bytes 50MB -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
	DIR="-files 200 -bytes 100MB -seed 1"
	GIB=""
	VIEWS="-files 1 -bytes 30MB -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
	BENCHTIME=200ms
	;;
*)
	echo "bench: BENCH must be full or quick, not $MODE" >&2
	exit 2
	;;
esac

for tool in node npm jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 2; }
done

echo "bench: npm ci (bench/node, conformance: pi 0.73.1 and pi 1.6.0)" >&2
(cd bench/node && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
[ -d conformance/node_modules/@earendil-works/pi-coding-agent ] ||
	(cd conformance && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
mkdir -p "$OUT/data"
$GO build -o "$OUT/pisess" ./cmd/pisess
$GO build -o "$OUT/sessiongen" ./scripts/gen/sessiongen

SRC=$CORPUS
if ! ls "$CORPUS"/*.jsonl >/dev/null 2>&1; then
	echo "bench: no real pi files in $CORPUS: generating from testdata/corpus/valid, not timing real files" >&2
	SRC=testdata/corpus/valid
fi

# generate NAME ARGS...: the data set $OUT/data/NAME, unless the same
# command made it before. GENSRC overrides the source files.
generate() {
	local name=$1
	shift
	local src=${GENSRC:-$SRC}
	local dir=$OUT/data/$name stamp="sessiongen -src $src $*"
	if [ "$(cat "$dir.stamp" 2>/dev/null)" = "$stamp" ]; then
		return
	fi
	rm -rf "$dir" "$dir.stamp"
	echo "bench: generating $name: $stamp" >&2
	# shellcheck disable=SC2086 # the flags are words
	"$OUT/sessiongen" -src "$src" -out "$dir" "$@"
	echo "$stamp" >"$dir.stamp"
}
# shellcheck disable=SC2086
generate big $BIG
# shellcheck disable=SC2086
generate dir $DIR
if [ -n "$GIB" ]; then
	# shellcheck disable=SC2086
	generate gib $GIB
fi
# The views' session: replayed from our own small test sessions, so it
# holds many small entries (150 MB, about 340,000 entries in the full run),
# the case where a per-entry cost shows.
# shellcheck disable=SC2086
GENSRC=testdata/corpus/valid generate views $VIEWS

echo "bench: Go micro-benchmarks -> $OUT/micro.txt" >&2
$GO test ./internal/session ./internal/validate ./internal/secrets -run '^$' -bench . -benchmem -benchtime "$BENCHTIME" | tee "$OUT/micro.txt"

sets=()
if [ "$SRC" = "$CORPUS" ]; then
	sets+=(-set "real=top:6:$CORPUS")
	sets+=(-views "real1=top:1:$CORPUS")
fi
sets+=(-views "views=$(find "$OUT/data/views" -name '*.jsonl' | head -1)")
sets+=(-set "big=$OUT/data/big" -set "dir=$OUT/data/dir")
if [ -n "$GIB" ]; then
	sets+=(-rss "gib=$OUT/data/gib")
fi
$GO run ./bench/runner -out "$OUT" -pisess "$OUT/pisess" -rounds "$ROUNDS" "${sets[@]}"
# scan beside validate on the real corpus (issue 16: at least half its throughput).
if [ "$SRC" = "$CORPUS" ] && command -v hyperfine >/dev/null; then
	hyperfine -N -w 3 -r 20 -i --export-markdown "$OUT/scan.md" "$OUT/pisess validate -q $CORPUS" "$OUT/pisess scan -q $CORPUS"
fi
echo "bench: results in $OUT/results.md, $OUT/results.tsv and $OUT/micro.txt" >&2
