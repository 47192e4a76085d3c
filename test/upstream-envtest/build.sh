#!/usr/bin/env bash
# Builds the test binary of upstream Cluster API v1.14.2's topology controller package
# (sigs.k8s.io/cluster-api/core/reconcilers/topology/cluster) with this folder's suite_test.go in place of upstream's,
# once per content of suite_test.go and this script, into the user cache directory. Progress on stderr (a line every
# 30 s while Go compiles); the last line of stdout is the binary's path.
#
# The upstream test file imports the module's internal packages (internal/contract, internal/hooks, internal/test/envtest
# ...) and calls unexported methods of its package's Reconciler, so it only compiles inside its own package of its own
# module: the script copies the published modules from the Go module cache (`go mod download -json`; the zips hold the
# _test.go files) into a scratch folder, the core module with the api module at ./api (where the module's own
# `replace sigs.k8s.io/cluster-api/api => ./api` expects it), keeps cluster_controller_test.go as the package's only
# upstream test file and adds suite_test.go. Nothing of upstream's is kept in this repository.
# First build on a warm Go build cache (the managers' build, build-upstream-capi.sh): a few CPU-minutes; it is niced and
# limited to GOFLAGS=-p=1 (UPSTREAM_ENVTEST_BUILD_P) so it shares 2 cores. Offline once the modules are in the cache.
set -euo pipefail

capi_version="v1.14.2"
package="core/reconcilers/topology/cluster"
here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
out_dir="$cache_root/upstream-envtest"
key="$(cat "$here/suite_test.go" "$here/build.sh" | sha256sum | cut -c1-16)-$capi_version-$(go env GOVERSION)"
binary="$out_dir/topology-cluster-$key.test"

log() { echo "upstream-envtest build: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi
command -v go >/dev/null || { echo "upstream-envtest build: go is required" >&2; exit 1; }
mkdir -p "$out_dir"

module_dir() {
  # NOTE: outside any module, so the test module's go.mod plays no part; answers from the module cache when it has it.
  (cd "$out_dir" && GOFLAGS=-mod=mod go mod download -json "$1@$capi_version") |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p'
}
log "finding sigs.k8s.io/cluster-api $capi_version in the Go module cache (downloads it on a cold cache)"
core_dir="$(module_dir sigs.k8s.io/cluster-api)"
api_dir="$(module_dir sigs.k8s.io/cluster-api/api)"
[[ -d "$core_dir/$package" && -d "$api_dir" ]] || {
  echo "upstream-envtest build: module folders not found ($core_dir, $api_dir)" >&2
  exit 1
}

src="$out_dir/src-$key"
rm -rf "$src"
cp -r "$core_dir" "$src"
cp -r "$api_dir" "$src/api"
chmod -R u+w "$src"
find "$src/$package" -maxdepth 1 -name '*_test.go' ! -name cluster_controller_test.go -delete
cp "$here/suite_test.go" "$src/$package/suite_test.go"
# NOTE: the one change to upstream's text: each test's `timeout := N * time.Second` goes through upstreamTimeout
# (suite_test.go), which returns N s unless UPSTREAM_ENVTEST_TIMEOUT_FLOOR asks for more.
test_file="$src/$package/cluster_controller_test.go"
sed -E -i 's/^(\ttimeout := )([0-9]+ \* time\.Second)$/\1upstreamTimeout(\2)/' "$test_file"
wrapped="$(grep -c 'timeout := upstreamTimeout(' "$test_file" || true)"
[[ "$wrapped" == 6 ]] || {
  echo "upstream-envtest build: expected 6 test timeouts in cluster_controller_test.go, wrapped $wrapped" >&2
  exit 1
}

log "compiling $package's test binary ($binary)"
started=$(date +%s)
cd "$src"
export GOFLAGS="-mod=readonly -buildvcs=false -p=${UPSTREAM_ENVTEST_BUILD_P:-1}"
CGO_ENABLED=0 nice -n 10 go test -c -trimpath -o "$binary.tmp" "./$package" >&2 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 30
  kill -0 "$pid" 2>/dev/null && log "still compiling ($(($(date +%s) - started)) s)"
done
wait "$pid"
mv "$binary.tmp" "$binary"
cd "$out_dir"
rm -rf "$src"
log "built in $(($(date +%s) - started)) s"
echo "$binary"
