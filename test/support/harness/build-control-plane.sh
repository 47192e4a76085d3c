#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from their published Go modules, once, into the user cache
# directory. Progress on stderr (a line every 30 s while the compiler runs).
# Used when KUBEBUILDER_ASSETS is not set. Prints the asset directory on the last line of stdout.
#   K8S_VERSION  Kubernetes release (default below); staging modules are pinned to the matching v0.x.y.
#   ETCD_VERSION etcd release the Kubernetes release was built against (from its go.mod).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.4}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
assets="$cache_root/control-plane/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-r3"

if [[ -x "$assets/kube-apiserver" && -x "$assets/kube-controller-manager" && -x "$assets/etcd" ]]; then
  echo "$assets"
  exit 0
fi

command -v go >/dev/null || { echo "build-control-plane: go is required (or set KUBEBUILDER_ASSETS)" >&2; exit 1; }

work="$cache_root/control-plane/build-$K8S_VERSION"
mkdir -p "$work" "$assets"
cd "$work"
staging_version="v0.${K8S_VERSION#v1.}"

log() { echo "build-control-plane: $(date -u +%H:%M:%S) $*" >&2; }

# go build with a progress line every 30 s; the binary appears atomically at $assets/<name>.
build() {
  local name="$1" start ticker
  shift
  start=$(date +%s)
  ( while sleep 30; do log "  still building $name ($(($(date +%s) - start)) s)"; done ) &
  ticker=$!
  if ! CGO_ENABLED=0 go build -trimpath -o "$assets/$name.tmp" "$@" >&2; then
    kill "$ticker" 2>/dev/null || true
    echo "build-control-plane: building $name failed" >&2
    exit 1
  fi
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  mv "$assets/$name.tmp" "$assets/$name"
  log "built $name in $(($(date +%s) - start)) s"
}

if [[ ! -f go.mod ]]; then
  log "preparing module for k8s.io/kubernetes $K8S_VERSION (staging modules at $staging_version)"
  cat > go.mod <<MOD
module capi-serverless/control-plane

go 1.24
MOD
  # The kubernetes module requires its staging repositories at v0.0.0 and replaces them with local folders;
  # outside its repository we replace them with their published versions instead.
  gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  grep -E '^\s+k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$gomod" | awk '{print $1}' | while read -r m; do
    go mod edit -replace "$m=$m@$staging_version"
  done
  go mod edit -require "k8s.io/kubernetes@$K8S_VERSION"
fi

export GOFLAGS="-mod=mod"
log "resolving dependencies (first run downloads a few hundred MB of modules)"
go get "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" \
  "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2

minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
version_flags="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
if [[ ! -x "$assets/kube-apiserver" ]]; then
  log "building kube-apiserver $K8S_VERSION (several minutes on 2 cores the first time)"
  build kube-apiserver -ldflags="-s -w $version_flags" k8s.io/kubernetes/cmd/kube-apiserver
fi
if [[ ! -x "$assets/kube-controller-manager" ]]; then
  log "building kube-controller-manager $K8S_VERSION (shares most packages with kube-apiserver)"
  build kube-controller-manager -ldflags="-s -w $version_flags" k8s.io/kubernetes/cmd/kube-controller-manager
fi
if [[ ! -x "$assets/etcd" ]]; then
  log "building etcd $ETCD_VERSION"
  build etcd -ldflags='-s -w' go.etcd.io/etcd/server/v3
fi
log "done: $assets"
echo "$assets"
