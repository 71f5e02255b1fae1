#!/usr/bin/env bash
# Writes to stdout the licences of the third-party modules linked into
# pisess on any of the release's platforms (the THIRD_PARTY_LICENSES file
# the release archives carry), from the module cache: each module's path
# and version, then its LICENSE/COPYING/NOTICE/PATENTS files verbatim.
# `make licenses` rewrites the file; with --check (`make licenses-check`,
# and the release) it fails when the file is stale: a dependency added,
# removed or upgraded.
set -euo pipefail
GO=${GO:-go}
if [ "${1:-}" = --check ]; then
  "$0" | cmp -s - THIRD_PARTY_LICENSES || { echo "THIRD_PARTY_LICENSES is stale: run make licenses" >&2; exit 1; }
  exit 0
fi
modules=$(for os in linux darwin windows; do
  GOOS=$os $GO list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}' ./cmd/pisess
done | sort -u)
echo "pisess links the following third-party Go modules. Their licences follow,"
echo "each as it is in the module's source, together with the Go standard"
echo "library's (the Go toolchain's LICENSE)."
while read -r path version; do
  [ -n "$path" ] || continue
  dir=$($GO list -m -f '{{.Dir}}' "$path")
  echo
  echo "================================================================"
  echo "$path $version"
  for f in $(cd "$dir" && ls | grep -iE '^(licen[cs]e|copying|notice|patents)([.-].*)?$' | sort); do
    echo "---------------- $f"
    cat "$dir/$f"
  done
done <<< "$modules"
echo
echo "================================================================"
echo "Go standard library (golang.org/go)"
echo "---------------- LICENSE"
cat "$($GO env GOROOT)/LICENSE"
