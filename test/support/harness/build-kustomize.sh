#!/usr/bin/env bash
# Builds kustomize from its published Go module (sigs.k8s.io/kustomize/kustomize/v5, the version upstream Cluster API
# v1.14's Makefile pins as KUSTOMIZE_VER), once, into the user cache directory. The provider tests build upstream's
# provider components from the modules' config/ with it, as upstream's `make release-manifests` does.
# Progress on stderr (a line every 30 s while the compiler runs); the last line of stdout is the binary's directory.
# Cache key: version + this script's revision. Niced and limited to GOFLAGS=-p=2 (a 2-core machine).
#   KUSTOMIZE_VERSION  default below
set -euo pipefail

KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.7.0}"
script_revision=1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
bin_dir="$cache_root/upstream-bin/kustomize-$KUSTOMIZE_VERSION-r$script_revision"
work="$cache_root/upstream-build/kustomize-$KUSTOMIZE_VERSION-r$script_revision"

log() { echo "build-kustomize: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$bin_dir/kustomize" ]]; then
  echo "$bin_dir"
  exit 0
fi

command -v go >/dev/null || { echo "build-kustomize: go is required" >&2; exit 1; }
mkdir -p "$work" "$bin_dir"
cd "$work"
export GOFLAGS="-mod=mod -p=2 -buildvcs=false"

if [[ ! -f go.sum ]]; then
  log "preparing scratch module for sigs.k8s.io/kustomize/kustomize/v5 $KUSTOMIZE_VERSION"
  rm -f go.mod
  go mod init capi-serverless/kustomize >/dev/null 2>&1
  log "resolving dependencies (first run downloads modules)"
  nice -n 10 go get "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2
fi

start=$(date +%s)
log "building kustomize (sigs.k8s.io/kustomize/kustomize/v5)"
(
  while sleep 30; do log "  still building kustomize ($(($(date +%s) - start)) s)"; done
) &
ticker=$!
if ! CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags="-s -w" -o "$bin_dir/kustomize.tmp" \
  sigs.k8s.io/kustomize/kustomize/v5 >&2; then
  kill "$ticker" 2>/dev/null || true
  echo "build-kustomize: building kustomize failed" >&2
  exit 1
fi
kill "$ticker" 2>/dev/null || true
wait "$ticker" 2>/dev/null || true
mv "$bin_dir/kustomize.tmp" "$bin_dir/kustomize"
log "built kustomize in $(($(date +%s) - start)) s"
log "done: $bin_dir"
echo "$bin_dir"
