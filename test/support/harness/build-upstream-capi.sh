#!/usr/bin/env bash
# Builds upstream Cluster API's managers from the published Go modules, once, into the user cache directory:
#   capi-manager           sigs.k8s.io/cluster-api/core                      (core: Cluster, Machine*, CRS, topology)
#   kubeadm-bootstrap      sigs.k8s.io/cluster-api/bootstrap/kubeadm
#   kubeadm-control-plane  sigs.k8s.io/cluster-api/controlplane/kubeadm
#   docker-infrastructure  sigs.k8s.io/cluster-api/test/infrastructure/docker  (Docker provider; its in-memory
#                          backend, DevCluster/DevMachine with backend.inMemory, needs no Docker engine)
# The test module's replace directives (`sigs.k8s.io/cluster-api => ../`) are ignored when it is a dependency, so a
# scratch module requires it and replaces the core and api modules with their published versions instead.
# Progress on stderr (a line every 30 s while the compiler runs); the last line of stdout is the binary directory.
# Cache key: version + this script's revision. Builds are niced and limited to GOFLAGS=-p=2 (a 2-core machine).
#   CAPI_VERSION  default below: the newest v1.14.x proxy.golang.org serves for sigs.k8s.io/cluster-api (v1.14.3+
#                 answer 403 "not available").
#   BINARIES      space-separated subset of the names above (default: all)
set -euo pipefail

CAPI_VERSION="${CAPI_VERSION:-v1.14.2}"
script_revision=1
all_binaries="capi-manager kubeadm-bootstrap kubeadm-control-plane docker-infrastructure"
BINARIES="${BINARIES:-$all_binaries}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
bin_dir="$cache_root/upstream-bin/capi-$CAPI_VERSION-r$script_revision"
work="$cache_root/upstream-build/managers-$CAPI_VERSION-r$script_revision"

log() { echo "build-upstream-capi: $(date -u +%H:%M:%S) $*" >&2; }

package_of() {
  case "$1" in
    capi-manager) echo sigs.k8s.io/cluster-api/core ;;
    kubeadm-bootstrap) echo sigs.k8s.io/cluster-api/bootstrap/kubeadm ;;
    kubeadm-control-plane) echo sigs.k8s.io/cluster-api/controlplane/kubeadm ;;
    docker-infrastructure) echo sigs.k8s.io/cluster-api/test/infrastructure/docker ;;
    *) echo "build-upstream-capi: unknown binary $1 (known: $all_binaries)" >&2; exit 1 ;;
  esac
}

missing=()
for b in $BINARIES; do
  package_of "$b" >/dev/null
  [[ -x "$bin_dir/$b" ]] || missing+=("$b")
done
if ((${#missing[@]} == 0)); then
  echo "$bin_dir"
  exit 0
fi

command -v go >/dev/null || { echo "build-upstream-capi: go is required" >&2; exit 1; }
mkdir -p "$work" "$bin_dir"
cd "$work"
export GOFLAGS="-mod=mod -p=2 -buildvcs=false"

if [[ ! -f go.sum ]]; then
  log "preparing scratch module for sigs.k8s.io/cluster-api $CAPI_VERSION"
  rm -f go.mod
  go mod init capi-serverless/upstream-managers >/dev/null 2>&1
  go mod edit \
    -replace "sigs.k8s.io/cluster-api=sigs.k8s.io/cluster-api@$CAPI_VERSION" \
    -replace "sigs.k8s.io/cluster-api/api=sigs.k8s.io/cluster-api/api@$CAPI_VERSION"
  log "resolving dependencies (first run downloads modules)"
  nice -n 10 go get "sigs.k8s.io/cluster-api@$CAPI_VERSION" "sigs.k8s.io/cluster-api/api@$CAPI_VERSION" \
    "sigs.k8s.io/cluster-api/test@$CAPI_VERSION" >&2
fi

version_flags="-X sigs.k8s.io/cluster-api/version.gitVersion=$CAPI_VERSION -X sigs.k8s.io/cluster-api/version.gitTreeState=clean"

for b in "${missing[@]}"; do
  pkg="$(package_of "$b")"
  start=$(date +%s)
  log "building $b ($pkg); the first binary compiles Kubernetes' client libraries, several CPU-minutes"
  (
    while sleep 30; do log "  still building $b ($(($(date +%s) - start)) s)"; done
  ) &
  ticker=$!
  if ! CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags="-s -w $version_flags" -o "$bin_dir/$b.tmp" "$pkg" >&2; then
    kill "$ticker" 2>/dev/null || true
    echo "build-upstream-capi: building $b failed" >&2
    exit 1
  fi
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  mv "$bin_dir/$b.tmp" "$bin_dir/$b"
  log "built $b in $(($(date +%s) - start)) s"
done
log "done: $bin_dir"
echo "$bin_dir"
