#!/usr/bin/env bash
# Builds upstream Cluster API's provider components for one release from the published Go modules, as upstream's
# `make release-manifests` does: the module's config/ copied, the manager image set to the release's
# (`registry.k8s.io/cluster-api/<image>:<version>`, pull policy IfNotPresent: upstream's manifest-modification), then
# `kustomize build <component>/config/default`. The core module's metadata.yaml is every provider's release metadata
# (upstream's e2e uses it for the Docker provider too). Nothing runs: the YAML is what a release publishes.
# Last line of stdout: the directory holding <provider>/components.yaml and metadata.yaml, for provider in
#   core, bootstrap-kubeadm, control-plane-kubeadm, infrastructure-docker
# Cache key: version + kustomize version + this script's revision.
#   $1 (or CAPI_VERSION)  the sigs.k8s.io/cluster-api (and .../test) module version, default v1.14.2
set -euo pipefail

CAPI_VERSION="${1:-${CAPI_VERSION:-v1.14.2}}"
here="$(cd "$(dirname "$0")" && pwd)"
kustomize_dir="$(bash "$here/build-kustomize.sh" | tail -n 1)"
kustomize_version="$(basename "$kustomize_dir")"
script_revision=1
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
dir="$cache_root/upstream/components-$CAPI_VERSION-$kustomize_version-s$script_revision"

log() { echo "build-provider-components: $*" >&2; }

if [[ -f "$dir/metadata.yaml" ]]; then
  echo "$dir"
  exit 0
fi

scratch="$(mktemp -d)"
tmp="$dir.tmp.$$"
trap 'rm -rf "$scratch" "$tmp"' EXIT
mkdir -p "$tmp"

module_dir() {
  local json
  log "downloading $1 (Go module proxy)"
  json="$(cd "$scratch" && GOFLAGS=-mod=mod go mod download -json "$1")"
  if grep -q '"Error"' <<<"$json"; then
    echo "build-provider-components: $1: $(sed -n 's/.*"Error": "\(.*\)".*/\1/p' <<<"$json")" >&2
    exit 1
  fi
  sed -n 's/.*"Dir": "\(.*\)".*/\1/p' <<<"$json"
}

core="$(module_dir "sigs.k8s.io/cluster-api@$CAPI_VERSION")"
test_module="$(module_dir "sigs.k8s.io/cluster-api/test@$CAPI_VERSION")"

# build <provider> <module dir> <path of the component in it> <image name>
build() {
  local provider="$1" module="$2" path="$3" image="$4" work
  log "kustomize build $path/config/default ($provider $CAPI_VERSION)"
  work="$scratch/$provider"
  mkdir -p "$work"
  cp -r "$module/$path/config" "$work/config"
  chmod -R u+w "$work"
  sed -i -E "s#image: .*#image: registry.k8s.io/cluster-api/$image:$CAPI_VERSION#" \
    "$work/config/default/manager_image_patch.yaml"
  if [[ -f "$work/config/default/manager_pull_policy.yaml" ]]; then
    sed -i -E 's#imagePullPolicy: .*#imagePullPolicy: IfNotPresent#' "$work/config/default/manager_pull_policy.yaml"
  fi
  mkdir -p "$tmp/$provider"
  "$kustomize_dir/kustomize" build "$work/config/default" >"$tmp/$provider/components.yaml"
}

build core "$core" core cluster-api-controller
build bootstrap-kubeadm "$core" bootstrap/kubeadm kubeadm-bootstrap-controller
build control-plane-kubeadm "$core" controlplane/kubeadm kubeadm-control-plane-controller
build infrastructure-docker "$test_module" infrastructure/docker capd-manager
cp "$core/metadata.yaml" "$tmp/metadata.yaml"
echo "CAPI_VERSION=$CAPI_VERSION" >"$tmp/versions.env"
echo "KUSTOMIZE=$kustomize_version" >>"$tmp/versions.env"
rm -rf "$dir"
mv "$tmp" "$dir"
log "done: $dir"
echo "$dir"
