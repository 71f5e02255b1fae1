#!/usr/bin/env bash
# bench/audit.sh: `pisess audit` beside `pisess validate` and ccusage (the
# pinned npm ccusage of bench/ccusage, its pi adapter) on one sessions
# directory, side by side: ROUNDS interleaved rounds in which hyperfine runs
# each command RUNS times; the table gives the median of all runs of each
# command and its ratios (docs/performance.md, "audit").
#
#   bench/audit.sh DIR [PISESS...]    (default PISESS: bin/pisess)
#
# Several pisess binaries (say, before and after a change) are timed in the
# same rounds. DIR is laid out as pi's sessions directory
# (<dir>/--<encoded cwd>--/<file>.jsonl): bench/ccusage/run.sh makes one of
# the real corpus, scripts/gen/sessiongen a generated one. Environment:
# ROUNDS (default 5), RUNS (default 3), CCUSAGE (default the pinned one).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/audit.sh DIR [PISESS...]" >&2; exit 2; }
DIR=$1
shift
BINS=("$@")
[ ${#BINS[@]} -gt 0 ] || BINS=(bin/pisess)
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-3}
CCUSAGE=${CCUSAGE:-bench/ccusage/node_modules/.bin/ccusage}
for tool in hyperfine jq "$CCUSAGE"; do
	command -v "$tool" >/dev/null || { echo "audit.sh: $tool is required (bench/ccusage/run.sh installs ccusage)" >&2; exit 2; }
done

names=() cmds=()
for bin in "${BINS[@]}"; do
	names+=("$bin audit" "$bin validate")
	cmds+=("$bin audit --format json --quiet $DIR" "$bin validate --format json --quiet $DIR")
done
names+=("ccusage $("$CCUSAGE" --version)")
cmds+=("$CCUSAGE pi session --pi-path $DIR --json --offline")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for round in $(seq "$ROUNDS"); do
	for i in "${!cmds[@]}"; do
		echo "audit.sh: round $round/$ROUNDS: ${names[$i]}" >&2
		hyperfine -N -i --style none -w 1 -r "$RUNS" --export-json "$tmp/run.json" "${cmds[$i]}" >/dev/null 2>&1
		jq -r '.results[0].times[]' "$tmp/run.json" >>"$tmp/$i.times"
	done
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cc=$(median "$tmp/$((${#cmds[@]} - 1)).times")
echo "$(find "$DIR" -name '*.jsonl' | wc -l) files, $(du -sh "$DIR" | cut -f1), $ROUNDS interleaved rounds of $RUNS runs, medians:"
echo
echo '| command | median (s) | × validate | × ccusage |'
echo '|---|---:|---:|---:|'
for i in "${!cmds[@]}"; do
	t=$(median "$tmp/$i.times")
	v=""
	case ${names[$i]} in
	*" audit") v=$(awk -v a="$t" -v b="$(median "$tmp/$((i + 1)).times")" 'BEGIN { printf "%.2f", a / b }') ;;
	esac
	echo "| ${names[$i]} | $t | $v | $(awk -v a="$t" -v b="$cc" 'BEGIN { printf "%.2f", a / b }') |"
done
