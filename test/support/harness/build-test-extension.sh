#!/usr/bin/env bash
# Builds upstream Cluster API's test Runtime Extension (sigs.k8s.io/cluster-api/test, extension/) from the published
# Go modules, once, into the user cache directory. Prints the binary's path on the last line of stdout; progress
# goes to stderr (a line every 30 s while Go builds).
#   CAPI_VERSION  upstream release (default below; the newest v1.14.x the Go module proxy serves whole)
set -euo pipefail

CAPI_VERSION="${CAPI_VERSION:-v1.14.2}"
# NOTE: bump when this script changes what it builds, so caches are rebuilt.
script_rev=1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
out="$cache_root/upstream-bin/capi-$CAPI_VERSION-r$script_rev"
binary="$out/test-extension"

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi
command -v go >/dev/null || { echo "build-test-extension: go is required" >&2; exit 1; }
log() { echo "build-test-extension: $*" >&2; }

work="$cache_root/upstream-build/test-extension-$CAPI_VERSION"
mkdir -p "$work" "$out"
cd "$work"
if [[ ! -f go.mod ]]; then
  # The test module replaces cluster-api and its api module with local folders; as a dependency those replaces are
  # ignored, so point them at the published versions of the same release.
  cat > go.mod <<MOD
module capi-serverless/upstream-test-extension

go 1.26.0

replace (
	sigs.k8s.io/cluster-api => sigs.k8s.io/cluster-api $CAPI_VERSION
	sigs.k8s.io/cluster-api/api => sigs.k8s.io/cluster-api/api $CAPI_VERSION
)
MOD
fi
export GOFLAGS="-mod=mod"
log "resolving sigs.k8s.io/cluster-api/test@$CAPI_VERSION"
go get "sigs.k8s.io/cluster-api/test/extension@$CAPI_VERSION" >&2

log "building the test extension (a few minutes on 2 cores the first time)"
started=$(date +%s)
nice -n 5 go build -trimpath -ldflags='-s -w' -o "$binary.tmp" sigs.k8s.io/cluster-api/test/extension >&2 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 30
  kill -0 "$pid" 2>/dev/null && log "still building ($(( $(date +%s) - started )) s)"
done
wait "$pid"
mv "$binary.tmp" "$binary"
log "done in $(( $(date +%s) - started )) s: $binary"
echo "$binary"
