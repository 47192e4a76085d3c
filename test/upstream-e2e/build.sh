#!/usr/bin/env bash
# Builds the upstream e2e test binary (this folder's Go test module: upstream Cluster API v1.14.2's e2e specs) once per
# content of go.mod, go.sum and the *_test.go files, into the user cache directory. Progress on stderr (a line every
# 30 s while Go compiles); the last line of stdout is the binary's path.
# The first build downloads the test module's dependencies from the Go module proxy and compiles clusterctl, kind and
# the e2e framework: tens of CPU-minutes on a cold Go build cache; it is niced and limited to GOFLAGS=-p=1 so it
# shares 2 cores. CGO_ENABLED=0 and -trimpath as build-upstream-capi.sh, so the Kubernetes libraries the managers'
# build compiled come from the Go build cache.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
out_dir="$cache_root/upstream-e2e"
key="$(cd "$here" && cat go.mod go.sum ./*_test.go | sha256sum | cut -c1-16)-$(go env GOVERSION)"
binary="$out_dir/upstream-e2e-$key.test"

log() { echo "upstream-e2e build: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi
command -v go >/dev/null || { echo "upstream-e2e build: go is required" >&2; exit 1; }
mkdir -p "$out_dir"
cd "$here"
export GOFLAGS="-mod=readonly -buildvcs=false -p=${UPSTREAM_E2E_BUILD_P:-1}"
log "downloading modules (Go module proxy; nothing when already in the module cache)"
go mod download >&2
log "compiling the e2e test binary ($binary)"
started=$(date +%s)
CGO_ENABLED=0 nice -n 10 go test -c -trimpath -o "$binary.tmp" . >&2 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 30
  kill -0 "$pid" 2>/dev/null && log "still compiling ($(($(date +%s) - started)) s)"
done
wait "$pid"
mv "$binary.tmp" "$binary"
log "built in $(($(date +%s) - started)) s"
echo "$binary"
