#!/usr/bin/env bash
# Builds the Cluster API Operator's manager from its published Go module (sigs.k8s.io/cluster-api-operator, main
# package `cmd`), once, into the user cache directory, for the differential and adoption tests against the operator
# itself. Its own go.mod pins its Cluster API library (v1.13.x for v0.29.0), so it gets its own scratch module rather
# than the one build-upstream-capi.sh pins to Cluster API v1.14.
# Progress on stderr (a line every 30 s while the compiler runs); the last line of stdout is the binary's directory.
# Cache key: version + this script's revision. Niced and limited to GOFLAGS=-p=2 (a 2-core machine).
#   CAPI_OPERATOR_VERSION  default below (the version fetch-upstream.sh pins for the operator's CRDs)
set -euo pipefail

CAPI_OPERATOR_VERSION="${CAPI_OPERATOR_VERSION:-v0.29.0}"
script_revision=1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
bin_dir="$cache_root/upstream-bin/operator-$CAPI_OPERATOR_VERSION-r$script_revision"
work="$cache_root/upstream-build/operator-$CAPI_OPERATOR_VERSION-r$script_revision"

log() { echo "build-capi-operator: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$bin_dir/capi-operator" ]]; then
  echo "$bin_dir"
  exit 0
fi

command -v go >/dev/null || { echo "build-capi-operator: go is required" >&2; exit 1; }
mkdir -p "$work" "$bin_dir"
cd "$work"
export GOFLAGS="-mod=mod -p=2 -buildvcs=false"

if [[ ! -f go.sum ]]; then
  log "preparing scratch module for sigs.k8s.io/cluster-api-operator $CAPI_OPERATOR_VERSION"
  rm -f go.mod
  go mod init capi-serverless/capi-operator >/dev/null 2>&1
  log "resolving dependencies (first run downloads modules)"
  nice -n 10 go get "sigs.k8s.io/cluster-api-operator@$CAPI_OPERATOR_VERSION" >&2
fi

start=$(date +%s)
log "building capi-operator (sigs.k8s.io/cluster-api-operator/cmd); several CPU-minutes from a cold Go build cache"
(
  while sleep 30; do log "  still building capi-operator ($(($(date +%s) - start)) s)"; done
) &
ticker=$!
if ! CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags="-s -w" -o "$bin_dir/capi-operator.tmp" \
  sigs.k8s.io/cluster-api-operator/cmd >&2; then
  kill "$ticker" 2>/dev/null || true
  echo "build-capi-operator: building capi-operator failed" >&2
  exit 1
fi
kill "$ticker" 2>/dev/null || true
wait "$ticker" 2>/dev/null || true
mv "$bin_dir/capi-operator.tmp" "$bin_dir/capi-operator"
log "built capi-operator in $(($(date +%s) - start)) s"
log "done: $bin_dir"
echo "$bin_dir"
