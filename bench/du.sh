#!/usr/bin/env bash
# bench/du.sh: `pisess du` beside `pisess validate` on the same file (the
# target: du at no less than validate's throughput), and the peak memory
# of the read-only commands on a file of one huge line and on a big file
# of many entries (the target: at most 1.5 times the largest line + 64
# MiB). Called by `make bench`; BENCH=quick makes the inputs ten times
# smaller. The machine may be shared: wall, user and system times are
# reported with the load average before and after each run.
#
# Inputs (in $OUT, kept between runs): a generated session of many medium
# entries (scripts/gen/sessiongen from the real files in $CORPUS, else
# testdata/corpus/valid), and a session whose one tool result is a text
# with escapes (\n, \t, \"), as real tool output is. Results:
# $OUT/du.md. See docs/performance.md, "du and bounded memory".
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${BENCH:-full}
OUT=${OUT:-bench/out}/du
CORPUS=${CORPUS:-../shared/corpus/real}
GO=${GO:-go}
case $MODE in
full) GEN_BYTES=1GB HUGE=300000000 ROUNDS=${ROUNDS:-3} ;;
quick) GEN_BYTES=100MB HUGE=30000000 ROUNDS=${ROUNDS:-3} ;;
*) echo "bench/du.sh: BENCH must be full or quick, not $MODE" >&2; exit 2 ;;
esac
command -v /usr/bin/time >/dev/null || { echo "bench/du.sh: /usr/bin/time is required" >&2; exit 2; }
[ -d "$CORPUS" ] || CORPUS=testdata/corpus/valid

mkdir -p "$OUT"
$GO build -o "$OUT/pisess" ./cmd/pisess
$GO build -o "$OUT/sessiongen" ./scripts/gen/sessiongen

many="$OUT/many-$GEN_BYTES"
if [ ! -d "$many" ]; then
	"$OUT/sessiongen" -src "$CORPUS" -out "$many" -files 1 -bytes "$GEN_BYTES" -sigma 0 -max-file 2GiB -forks 0 -legacy 0 >&2
fi
MANY=$(find "$many" -name '*.jsonl' | head -1)

HUGEFILE="$OUT/escaped-$HUGE.jsonl"
if [ ! -f "$HUGEFILE" ]; then
	stamp='"timestamp":"2026-01-02T03:04:05.678Z"'
	unit='-rw-r--r-- 1 root root 4096 Jan  1 00:00 \"some file\"\tname.go\n'
	{
		printf '%s\n' '{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
		printf '%s\n' '{"type":"message","id":"00000001","parentId":null,'"$stamp"',"message":{"role":"user","content":[{"type":"text","text":"ls"}],"timestamp":1}}'
		printf '%s\n' '{"type":"message","id":"00000002","parentId":"00000001",'"$stamp"',"message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls -l"}}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}'
		printf '%s' '{"type":"message","id":"00000003","parentId":"00000002",'"$stamp"',"message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"'
		(set +o pipefail; yes -- "$unit" | tr -d '\n' | head -c $((HUGE / ${#unit} * ${#unit}))) # whole units: no escape cut; yes ends on SIGPIPE
		printf '%s\n' '"}],"isError":false,"timestamp":3}}'
	} >"$HUGEFILE"
fi

longest() { awk '{ if (length($0) > m) m = length($0) } END { print m }' "$1"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# measure FILE ARGS...: one run; prints wall user sys rss(KiB) and the load before/after.
measure() {
	local file=$1 before
	shift
	before=$(load)
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/time.txt" "$OUT/pisess" "$@" --max-line-bytes 1GiB "$file" >/dev/null 2>"$OUT/stderr.txt" || true
	printf '%s %s | %s\n' "$(cat "$OUT/time.txt")" "$before" "$(load)"
}

{
	echo "# du beside validate, and the read-only commands' peak memory ($MODE)"
	echo
	echo "$(nproc) CPUs; load average at the start: $(load). Commands run one at a time, $ROUNDS rounds interleaved."
	echo
	echo "## Throughput on the same file"
	echo
	for f in "$MANY" "$HUGEFILE"; do
		size=$(stat -c %s "$f")
		echo "$(basename "$f"): $size bytes, largest line $(longest "$f") bytes"
		echo
		echo "| command | round | wall s | MB/s | user s | sys s | peak RSS MiB | load before \\| after |"
		echo "|---|---:|---:|---:|---:|---:|---:|---|"
		for r in $(seq "$ROUNDS"); do
			for cmd in validate du; do
				read -r wall user sys rss rest <<<"$(measure "$f" "$cmd")"
				printf '| %s | %d | %s | %.0f | %s | %s | %d | %s |\n' "$cmd" "$r" "$wall" "$(awk -v s="$size" -v w="$wall" 'BEGIN { print s / w / 1e6 }')" "$user" "$sys" $((rss / 1024)) "${rest//|/\\|}"
			done
		done
		echo
	done
	echo "## Peak memory of the read-only commands"
	echo
	echo "| file | command | peak RSS MiB | × largest line | bound (1.5 × line + 64 MiB) | within |"
	echo "|---|---|---:|---:|---:|---|"
	for f in "$HUGEFILE" "$MANY"; do
		line=$(longest "$f")
		bound=$(((line * 3 / 2 + (64 << 20)) >> 20))
		for args in "validate" "audit" "du" "tree" "path" "context" "tree --width 0" "context --width 0" "context --format json"; do
			read -r wall user sys rss rest <<<"$(measure "$f" $args)"
			within=yes
			[ $((rss / 1024)) -le "$bound" ] || within=NO
			printf '| %s | %s | %d | %.2f | %d | %s |\n' "$(basename "$f")" "$args" $((rss / 1024)) "$(awk -v r="$rss" -v l="$line" 'BEGIN { print r * 1024 / l }')" "$bound" "$within"
		done
	done
} | tee "$OUT/du.md"
