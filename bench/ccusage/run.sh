#!/usr/bin/env bash
# bench/ccusage/run.sh: compare `pisess audit` with ccusage, the usage tool
# pi users already run (npm ccusage, pinned in package.json: its Rust
# binary and pi adapter), per session and in total, and time both side by
# side. Results and the explanation of every difference:
# docs/performance.md ("audit against ccusage").
#
# 1. installs the pinned ccusage (npm ci) and builds pisess into $OUT;
# 2. lays the real pi files ($CORPUS) out as pi's sessions directory
#    (<dir>/--<encoded cwd>--/<file>.jsonl) in $OUT/ccusage-sessions;
# 3. runs `ccusage pi session --pi-path DIR --json --offline` and
#    `pisess audit --format json DIR`, joins them by file name and writes
#    $OUT/ccusage.tsv (one line per session, both sides, and the
#    differences) and $OUT/ccusage.md (the summary);
# 4. times both on the same directory, interleaved, $ROUNDS rounds, medians.
#
# Environment: CORPUS (default ../shared/corpus/real), OUT (default
# bench/out), ROUNDS (default 7). Exit 1 when a session differs in a way
# docs/performance.md does not explain (see `explained` below).
set -euo pipefail
cd "$(dirname "$0")/../.."

CORPUS=${CORPUS:-../shared/corpus/real}
OUT=${OUT:-bench/out}
ROUNDS=${ROUNDS:-7}
GO=${GO:-go}
for tool in node npm jq; do
	command -v "$tool" >/dev/null || { echo "ccusage: $tool is required" >&2; exit 2; }
done
ls "$CORPUS"/*.jsonl >/dev/null 2>&1 || { echo "ccusage: no pi files in $CORPUS" >&2; exit 2; }

# npm install, not npm ci: the registry mirror here lacks the other
# platforms' optional binaries, which npm ci insists on; the lockfile still
# pins the version and integrity of what is installed.
echo "ccusage: npm install (bench/ccusage)" >&2
(cd bench/ccusage && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
CCUSAGE=bench/ccusage/node_modules/.bin/ccusage
mkdir -p "$OUT"
$GO build -o "$OUT/pisess" ./cmd/pisess

# pi's layout: each file in the directory pi names after its cwd.
DIR=$OUT/ccusage-sessions
rm -rf "$DIR"
mkdir -p "$DIR"
for f in "$CORPUS"/*.jsonl; do
	cwd=$(head -n 1 "$f" | jq -r '.cwd // "unknown"' 2>/dev/null || echo unknown)
	enc="--$(printf '%s' "$cwd" | sed -e 's#^[/\\]##' -e 's#[/\\:]#-#g')--"
	mkdir -p "$DIR/$enc"
	cp "$f" "$DIR/$enc/"
done

"$CCUSAGE" --version >"$OUT/ccusage.version"
"$CCUSAGE" pi session --pi-path "$DIR" --json --offline >"$OUT/ccusage.json"
"$OUT/pisess" audit --format json --quiet "$DIR" >"$OUT/pisess-audit.json" || [ $? -eq 1 ] # corrupt files: exit 1

# One line per session: file stem, then input output cacheRead cacheWrite
# total cost for ccusage and for pisess (whole files, copies included),
# then pisess's verdict.
jq -r '.sessions[] | [.sessionId, .inputTokens, .outputTokens, .cacheReadTokens, .cacheCreationTokens, .totalTokens, .totalCost] | @tsv' \
	"$OUT/ccusage.json" | sort >"$OUT/ccusage.sessions.tsv"
jq -r 'select(.file) | [(.file | split("/") | last | sub("\\.jsonl$"; "")), .tokens.input, .tokens.output, .tokens.cacheRead, .tokens.cacheWrite, .tokens.total, .cost, .verdict, .usageRecords] | @tsv' \
	"$OUT/pisess-audit.json" | sort >"$OUT/pisess.sessions.tsv"
{
	printf 'session\tcc.input\tcc.output\tcc.cacheRead\tcc.cacheWrite\tcc.total\tcc.cost\tpisess.input\tpisess.output\tpisess.cacheRead\tpisess.cacheWrite\tpisess.total\tpisess.cost\tverdict\tusageRecords\tdiffers\n'
	join -t "$(printf '\t')" -a 2 -e 0 -o 0,1.2,1.3,1.4,1.5,1.6,1.7,2.2,2.3,2.4,2.5,2.6,2.7,2.8,2.9 \
		"$OUT/ccusage.sessions.tsv" "$OUT/pisess.sessions.tsv" |
		awk -F'\t' -v OFS='\t' '{
			d = ($2 != $8 || $3 != $9 || $4 != $10 || $5 != $11 || $6 != $12 || ($7 - $13) ^ 2 > 1e-12)
			print $0, (d ? "yes" : "no")
		}'
} >"$OUT/ccusage.tsv"

# Differences docs/performance.md explains: ccusage does not count the
# object that a lost newline glued to the line before (pisess reads both:
# concatenated_objects, verdict corrupt).
explained() { [ "$1" = corrupt ]; }
unexplained=0
while IFS=$'\t' read -r session _ _ _ _ _ _ _ _ _ _ _ _ verdict _ differs; do
	[ "$differs" = yes ] || continue
	if ! explained "$verdict"; then
		echo "ccusage: $session differs and nothing explains it" >&2
		unexplained=$((unexplained + 1))
	fi
done < <(tail -n +2 "$OUT/ccusage.tsv")

# Side by side: the same directory, interleaved rounds, medians.
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$OUT/ccusage.times"
for _ in $(seq "$ROUNDS"); do
	for tool in ccusage pisess pisess-validate; do
		start=$(date +%s.%N)
		case $tool in
		ccusage) "$CCUSAGE" pi session --pi-path "$DIR" --json --offline >/dev/null ;;
		pisess) "$OUT/pisess" audit --format json --quiet "$DIR" >/dev/null || true ;;
		pisess-validate) "$OUT/pisess" validate --format json --quiet "$DIR" >/dev/null || true ;;
		esac
		end=$(date +%s.%N)
		awk -v a="$start" -v b="$end" -v t="$tool" 'BEGIN { printf "%s\t%.3f\n", t, b - a }' >>"$OUT/ccusage.times"
	done
done
t_cc=$(awk -F'\t' '$1 == "ccusage" { print $2 }' "$OUT/ccusage.times" | median)
t_audit=$(awk -F'\t' '$1 == "pisess" { print $2 }' "$OUT/ccusage.times" | median)
t_validate=$(awk -F'\t' '$1 == "pisess-validate" { print $2 }' "$OUT/ccusage.times" | median)

{
	echo "# pisess audit against $(cat "$OUT/ccusage.version") (pi adapter)"
	echo
	echo "$(ls "$CORPUS"/*.jsonl | wc -l) files from $CORPUS laid out as pi's sessions directory."
	echo
	echo '| | sessions listed | input | output | cache read | cache write | total tokens | cost |'
	echo '|---|---:|---:|---:|---:|---:|---:|---:|'
	jq -r '"| ccusage | \(.sessions | length) | \(.totals.inputTokens) | \(.totals.outputTokens) | \(.totals.cacheReadTokens) | \(.totals.cacheCreationTokens) | \(.totals.totalTokens) | \(.totals.totalCost * 100 | round / 100) |"' "$OUT/ccusage.json"
	jq -rs '(map(select(.file))) as $f | (last.summary) as $s |
		"| pisess, every file in full | \($f | length) | \([$f[].tokens.input] | add) | \([$f[].tokens.output] | add) | \([$f[].tokens.cacheRead] | add) | \([$f[].tokens.cacheWrite] | add) | \([$f[].tokens.total] | add) | \([$f[].cost] | add * 100 | round / 100) |",
		"| pisess summary (copies once) | \($s.files) | \($s.tokens.input) | \($s.tokens.output) | \($s.tokens.cacheRead) | \($s.tokens.cacheWrite) | \($s.tokens.total) | \($s.cost * 100 | round / 100) |",
		"| pisess duplicates left out (\($s.duplicateEntries) entries) | | \($s.duplicateTokens.input) | \($s.duplicateTokens.output) | \($s.duplicateTokens.cacheRead) | \($s.duplicateTokens.cacheWrite) | \($s.duplicateTokens.total) | \($s.duplicateCost * 100 | round / 100) |"' "$OUT/pisess-audit.json"
	echo
	echo "Sessions that differ (per file, both sides count the whole file):"
	echo
	echo '| session | verdict | ccusage total | pisess total | ccusage cost | pisess cost |'
	echo '|---|---|---:|---:|---:|---:|'
	awk -F'\t' 'NR > 1 && $16 == "yes" { printf "| %s | %s | %s | %s | %.4f | %.4f |\n", $1, $14, $6, $12, $7, $13 }' "$OUT/ccusage.tsv"
	echo
	echo "Wall time, median of $ROUNDS interleaved rounds: ccusage ${t_cc}s, pisess audit ${t_audit}s, pisess validate ${t_validate}s."
} >"$OUT/ccusage.md"
cat "$OUT/ccusage.md"
[ "$unexplained" -eq 0 ]
