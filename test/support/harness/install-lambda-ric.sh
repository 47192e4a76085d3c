#!/usr/bin/env bash
# Installs the AWS Lambda Node.js Runtime Interface Client (npm package `aws-lambda-ric`) once into the user cache
# directory, for the test that runs the synthesized bundles in a Lambda runtime (test/integration/runtime/
# lambda-rie.test.ts). Its install scripts compile curl and aws-lambda-cpp and then a native addon (cmake, make, a C++
# compiler); a few minutes on a loaded 2-core machine, so it stays out of `npm ci`.
# Progress on stderr (a line every 30 s while it builds); the last line of stdout is the package's directory.
# Cache key: version + Node major + this script's revision.
#   LAMBDA_RIC_VERSION  default below
set -euo pipefail

LAMBDA_RIC_VERSION="${LAMBDA_RIC_VERSION:-4.0.2}"
script_revision=1
node_major="$(node -p 'process.versions.node.split(".")[0]')"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
prefix="$cache_root/lambda-ric/$LAMBDA_RIC_VERSION-node$node_major-r$script_revision"
package="$prefix/node_modules/aws-lambda-ric"

log() { echo "install-lambda-ric: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -f "$package/rapid-client.node" ]]; then
  echo "$package"
  exit 0
fi

((node_major >= 22)) || { echo "install-lambda-ric: Node 22 or newer is required (found $(node --version))" >&2; exit 1; }
for tool in cmake make g++; do
  command -v "$tool" >/dev/null || { echo "install-lambda-ric: $tool is required to build the native addon" >&2; exit 1; }
done

start=$(date +%s)
log "installing aws-lambda-ric@$LAMBDA_RIC_VERSION (builds curl, aws-lambda-cpp and the addon from source)"
(
  while sleep 30; do log "  still building aws-lambda-ric ($(($(date +%s) - start)) s)"; done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
rm -rf "$prefix.tmp"
mkdir -p "$prefix.tmp"
nice -n 10 npm install --prefix "$prefix.tmp" --no-save --no-audit --no-fund --no-package-lock \
  "aws-lambda-ric@$LAMBDA_RIC_VERSION" >&2
[[ -f "$prefix.tmp/node_modules/aws-lambda-ric/rapid-client.node" ]] ||
  { echo "install-lambda-ric: the native addon (rapid-client.node) was not built" >&2; exit 1; }
rm -rf "$prefix"
mv "$prefix.tmp" "$prefix"
log "installed in $(($(date +%s) - start)) s: $package"
echo "$package"
