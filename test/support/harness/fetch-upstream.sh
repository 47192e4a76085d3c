#!/usr/bin/env bash
# Fetches upstream Cluster API's manifests (CRDs, their kustomizations, admission webhook configurations) and e2e
# data from the published Go modules, once, into the user cache directory. Nothing is built. Progress on stderr; the
# last line of stdout is the cache directory:
#   <dir>/versions.env                              the module versions below
#   <dir>/<component>/config/{crd,default,webhook}  as in the module, for component in
#       core, bootstrap-kubeadm, control-plane-kubeadm, infrastructure-docker, operator
#   <dir>/e2e/infrastructure-docker/...             test/e2e/data/infrastructure-docker of the test module
#   <dir>/e2e/docker-templates/...                  test/infrastructure/docker/templates of the test module
# Environment (defaults below):
#   CAPI_VERSION           sigs.k8s.io/cluster-api, .../api and .../test. v1.14.3 and later are not served by
#                          proxy.golang.org for the core module ("403 This module version is not available"), so the
#                          newest servable v1.14.x is pinned.
#   CAPI_OPERATOR_VERSION  sigs.k8s.io/cluster-api-operator
set -euo pipefail

CAPI_VERSION="${CAPI_VERSION:-v1.14.2}"
CAPI_OPERATOR_VERSION="${CAPI_OPERATOR_VERSION:-v0.29.0}"
script_revision=1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
dir="$cache_root/upstream/capi-$CAPI_VERSION-operator-$CAPI_OPERATOR_VERSION-r$script_revision"

log() { echo "fetch-upstream: $*" >&2; }

if [[ -f "$dir/versions.env" ]]; then
  echo "$dir"
  exit 0
fi

command -v go >/dev/null || { echo "fetch-upstream: go is required" >&2; exit 1; }

# go mod download needs a module context only for its own cache; an empty scratch directory avoids picking up any
# go.mod of the caller.
scratch="$(mktemp -d)"
tmp="$dir.tmp.$$"
trap 'rm -rf "$scratch" "$tmp"' EXIT
mkdir -p "$tmp"

module_dir() {
  local json
  log "downloading $1 (Go module proxy)"
  json="$(cd "$scratch" && GOFLAGS=-mod=mod go mod download -json "$1")"
  if grep -q '"Error"' <<<"$json"; then
    echo "fetch-upstream: $1: $(sed -n 's/.*"Error": "\(.*\)".*/\1/p' <<<"$json")" >&2
    exit 1
  fi
  sed -n 's/.*"Dir": "\(.*\)".*/\1/p' <<<"$json"
}

core="$(module_dir "sigs.k8s.io/cluster-api@$CAPI_VERSION")"
api="$(module_dir "sigs.k8s.io/cluster-api/api@$CAPI_VERSION")"
test_module="$(module_dir "sigs.k8s.io/cluster-api/test@$CAPI_VERSION")"
operator="$(module_dir "sigs.k8s.io/cluster-api-operator@$CAPI_OPERATOR_VERSION")"

copy_config() {
  local component="$1" src="$2"
  log "collecting $component manifests from $src"
  mkdir -p "$tmp/$component/config"
  for part in crd default webhook; do
    if [[ -d "$src/$part" ]]; then cp -r "$src/$part" "$tmp/$component/config/$part"; fi
  done
  [[ -d "$tmp/$component/config/crd/bases" ]] || { echo "fetch-upstream: no CRDs under $src/crd" >&2; exit 1; }
}

copy_config core "$core/core/config"
copy_config bootstrap-kubeadm "$core/bootstrap/kubeadm/config"
copy_config control-plane-kubeadm "$core/controlplane/kubeadm/config"
copy_config infrastructure-docker "$test_module/infrastructure/docker/config"
copy_config operator "$operator/config"

log "collecting e2e data"
mkdir -p "$tmp/e2e"
cp -r "$test_module/e2e/data/infrastructure-docker" "$tmp/e2e/infrastructure-docker"
cp -r "$test_module/infrastructure/docker/templates" "$tmp/e2e/docker-templates"
chmod -R u+w "$tmp"

cat >"$tmp/versions.env" <<EOF
CAPI_VERSION=$CAPI_VERSION
CAPI_OPERATOR_VERSION=$CAPI_OPERATOR_VERSION
CAPI_MODULE_DIR=$core
CAPI_API_MODULE_DIR=$api
CAPI_TEST_MODULE_DIR=$test_module
CAPI_OPERATOR_MODULE_DIR=$operator
EOF

rm -rf "$dir"
mv "$tmp" "$dir"
log "done: $dir"
echo "$dir"
