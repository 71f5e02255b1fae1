#!/usr/bin/env bash
# Makes the files the release archives carry besides the binary, from the
# command definitions themselves: the man page (man/pisess.1) and the
# bash, zsh and fish completion scripts (completions/). GoReleaser runs it
# as a before-hook; both directories are ignored by git.
set -euo pipefail
GO=${GO:-go}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
$GO build -o "$out/pisess" ./cmd/pisess
rm -rf man completions
mkdir -p man completions
"$out/pisess" man > man/pisess.1
for sh in bash zsh fish; do
  "$out/pisess" completion "$sh" > "completions/pisess.$sh"
done
