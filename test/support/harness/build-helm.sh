#!/usr/bin/env bash
# Builds helm (main package cmd/helm of the Go module helm.sh/helm/v3), once, into the user cache directory, for the
# chart tests (test/unit/infra/chart/, test/integration/chart/): `helm lint`, `helm template`, `helm install` against the
# harness's kube-apiserver.
# Progress on stderr (a line every 30 s while the compiler runs); the last line of stdout is the binary's path.
# Cache key: version + this script's revision. Niced and limited to GOFLAGS=-p=2 (a 2-core machine).
#   HELM_VERSION  default below
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
script_revision=1
module=helm.sh/helm/v3
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
bin_dir="$cache_root/helm/$HELM_VERSION-r$script_revision"
binary="$bin_dir/helm"

log() { echo "build-helm: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi

command -v go >/dev/null || { echo "build-helm: go is required" >&2; exit 1; }
mkdir -p "$bin_dir"
export GOFLAGS="-p=2 -buildvcs=false" CGO_ENABLED=0

start=$(date +%s)
log "building helm ($module $HELM_VERSION); first run downloads its modules"
(
  while sleep 30; do log "  still building helm ($(($(date +%s) - start)) s)"; done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
# NOTE: `helm version` prints the version the release build stamps with -X; `go install` leaves it at the module's
# default, so stamp it the same way (helm.sh/helm/v3/internal/version.version).
GOBIN="$bin_dir.tmp" nice -n 10 go install -trimpath \
  -ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "$module/cmd/helm@$HELM_VERSION" >&2
mv "$bin_dir.tmp/helm" "$binary"
rmdir "$bin_dir.tmp"
log "built in $(($(date +%s) - start)) s: $binary"
echo "$binary"
