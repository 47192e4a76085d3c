#!/usr/bin/env bash
# Builds the Go oracle (test/support/oracles/go) once into the user cache directory and prints the binary's path on the last
# line of stdout. The cache key is the hash of go.mod, go.sum and main.go, so any change rebuilds it. Needs Go and the
# Go module proxy the first time (module versions pinned in go.mod/go.sum).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
key="$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)"
dir="$cache_root/oracles/$key"
bin="$dir/capi-serverless-oracle"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { echo "oracles/go/build.sh: go is required" >&2; exit 1; }
mkdir -p "$dir"
# Test files run in parallel: one builds, the others wait for it.
exec 9>"$dir/.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
echo "oracles/go/build.sh: building the Go oracle into $dir (a minute or two the first time)" >&2
cd "$here"
tmp="$(mktemp "$dir/build.XXXXXX")"
CGO_ENABLED=0 GOFLAGS=-mod=readonly nice -n 10 go build -trimpath -ldflags='-s -w' -o "$tmp" . >&2
mv -f "$tmp" "$bin"
echo "$bin"
