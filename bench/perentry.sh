#!/usr/bin/env bash
# bench/perentry.sh [BASE [HEAD]]: validate's cost per entry (issue 28),
# two builds side by side. make bench runs it (BASE = HEAD there: the
# figures of one build, beside cat, wc, node and jq); docs/performance.md,
# "The cost per entry", has the method and the results.
#
# 1. builds pisess and the validate test binary of BASE (default main) and
#    HEAD (default HEAD) from `git archive` into $OUT/perentry:
#    the repository is never checked out; BASE gets the small-entry
#    benchmark of the work tree when it has none;
# 2. generates the small-entry session (150 MB, about 338,000 entries of
#    about 440 bytes, replayed from testdata/corpus/valid; QUICK=1: 30 MB)
#    unless the same command made it before;
# 3. with valgrind: the instructions of validate.Stream on
#    BenchmarkSmallEntries (20,000 entries, built in process; GOGC=off, so
#    the figure is the pass's own work and repeats under load);
# 4. times both builds on the session, interleaved, ROUNDS rounds, and
#    prints medians of wall, user+sys CPU and peak RSS: validate (2 jobs),
#    validate --jobs 1, --no-schema, audit; beside them cat FILE | wc -c,
#    node's bare JSON.parse of every line and jq -c . (once each round).
#
# Environment: OUT (default bench/out), ROUNDS (default 7), QUICK,
# CALLGRIND=0 (skip step 3), GO.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${1:-main}
HEAD=${2:-HEAD}
OUT=${OUT:-bench/out}
ROUNDS=${ROUNDS:-7}
GO=${GO:-go}
DIR=$OUT/perentry
SIZE=150MB
[ -n "${QUICK:-}" ] && SIZE=30MB
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

# build NAME REV: pisess and validate.test of REV.
build() {
	local name=$1 rev=$2 src=$DIR/src-$1
	rm -rf "$src"
	mkdir -p "$src"
	git archive "$rev" | tar -x -C "$src"
	[ -f "$src/internal/validate/smallentries_test.go" ] ||
		cp internal/validate/smallentries_test.go "$src/internal/validate/"
	(cd "$src" && $GO build -o "$DIR/pisess-$name" ./cmd/pisess &&
		CGO_ENABLED=0 $GO test -c -o "$DIR/validate-$name.test" ./internal/validate)
}
echo "perentry: building $BASE and $HEAD" >&2
build base "$BASE"
build head "$HEAD"

FILE=$DIR/small.jsonl
stamp="sessiongen -src testdata/corpus/valid -files 1 -bytes $SIZE -sigma 0 -max-file 2GiB -forks 0 -legacy 0"
if [ "$(cat "$FILE.stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "perentry: generating $FILE" >&2
	rm -rf "$DIR/gen" "$FILE"
	# shellcheck disable=SC2086 # the flags are words
	$GO run ./scripts/gen/sessiongen -src testdata/corpus/valid -out "$DIR/gen" ${stamp#sessiongen -src testdata/corpus/valid }
	mv "$(find "$DIR/gen" -name '*.jsonl' | head -1)" "$FILE"
	rm -rf "$DIR/gen"
	echo "$stamp" >"$FILE.stamp"
fi
entries=$(($(wc -l <"$FILE") - 1))
echo "perentry: $FILE: $(wc -c <"$FILE") bytes, $entries entries" >&2

if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
	for bench in full no-schema; do
		for b in base head; do
			# callgrind now and then aborts on one of Go's signals, with a figure far
			# too small: such a run is made again.
			for _ in 1 2 3; do
				ir=$(cd internal/validate && GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
					--callgrind-out-file=/dev/null --toggle-collect='*validate.Stream' \
					"$DIR/validate-$b.test" -test.run '^$' -test.bench "SmallEntries/$bench\$" \
					-test.benchtime 1x -test.cpu 1 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,)
				[ "${ir:-0}" -gt 100000000 ] && break
			done
			echo "instructions $bench $b: ${ir:-none} ($((${ir:-0} / 20000)) an entry)"
		done
	done
fi

# timed LABEL CMD...: one run; appends "LABEL wall cpu rss" to $DIR/times.
timed() {
	local label=$1
	shift
	/usr/bin/time -f "$label %e %U %S %M" -a -o "$DIR/times.raw" "$@" >/dev/null 2>&1 || true
}
: >"$DIR/times.raw"
for ((r = 1; r <= ROUNDS; r++)); do
	echo "perentry: round $r of $ROUNDS" >&2
	for b in base head; do
		timed "$b:validate" "$DIR/pisess-$b" validate "$FILE"
		timed "$b:validate-jobs1" "$DIR/pisess-$b" validate --jobs 1 "$FILE"
		timed "$b:no-schema" "$DIR/pisess-$b" validate --no-schema "$FILE"
		timed "$b:audit" "$DIR/pisess-$b" audit "$FILE"
	done
	timed "cat|wc" sh -c 'cat "$1" | wc -c' sh "$FILE"
	command -v node >/dev/null &&
		timed "node-JSON.parse" node -e 'const fs=require("fs");let n=0;for(const l of fs.readFileSync(process.argv[1],"utf8").split("\n"))if(l)JSON.parse(l),n++;' "$FILE"
	command -v jq >/dev/null && [ "$r" -le 3 ] && timed "jq" sh -c 'jq -c . "$1" >/dev/null' sh "$FILE"
done
# medians: label, wall s, CPU s (user+sys), CPU us an entry, RSS MiB
awk -v entries="$entries" '
	{ wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " ($3 + $4); rss[$1] = rss[$1] " " $5 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (l in wall) printf "%-20s %8.2f %8.2f %10.2f %8.1f\n", l, median(wall[l]), median(cpu[l]), median(cpu[l]) * 1e6 / entries, median(rss[l]) / 1024
	}' "$DIR/times.raw" | sort | { printf "%-20s %8s %8s %10s %8s\n" command "wall s" "CPU s" "CPU us/e" "RSS MiB"; cat; } | tee "$DIR/times.txt"
echo "perentry: medians in $DIR/times.txt (raw runs: $DIR/times.raw); load now: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
