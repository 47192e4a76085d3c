#!/usr/bin/env bash
# Builds the AWS Lambda Runtime Interface Emulator (`aws-lambda-rie`, main package cmd/aws-lambda-rie of the Go module
# github.com/aws/aws-lambda-runtime-interface-emulator), once, into the user cache directory, for the test that runs
# the synthesized bundles in a Lambda runtime (test/integration/runtime/lambda-rie.test.ts).
# Progress on stderr (a line every 30 s while the compiler runs); the last line of stdout is the binary's path.
# Cache key: version + this script's revision. Niced and limited to GOFLAGS=-p=2 (a 2-core machine).
#   LAMBDA_RIE_VERSION  default below
set -euo pipefail

# NOTE: the repository's release tags (v1.30, ...) are not semantic versions, so the Go module proxy serves the
# emulator only as pseudo-versions; this is the newest it serves (commit bef5c4ba774d, 2026-10-30, after v1.30).
LAMBDA_RIE_VERSION="${LAMBDA_RIE_VERSION:-v0.0.0-20261030222936-bef5c4ba774d}"
script_revision=1
module=github.com/aws/aws-lambda-runtime-interface-emulator
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
bin_dir="$cache_root/lambda-rie/$LAMBDA_RIE_VERSION-r$script_revision"
binary="$bin_dir/aws-lambda-rie"

log() { echo "build-lambda-rie: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi

command -v go >/dev/null || { echo "build-lambda-rie: go is required" >&2; exit 1; }
mkdir -p "$bin_dir"
export GOFLAGS="-p=2 -buildvcs=false" CGO_ENABLED=0

start=$(date +%s)
log "building aws-lambda-rie ($module $LAMBDA_RIE_VERSION); first run downloads its modules"
(
  while sleep 30; do log "  still building aws-lambda-rie ($(($(date +%s) - start)) s)"; done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
# NOTE: `go install module/cmd@version` builds in module mode from the proxy without a scratch module; the emulator's
# go.mod has no replace directives, so that is allowed.
GOBIN="$bin_dir.tmp" nice -n 10 go install -trimpath -ldflags='-s -w' "$module/cmd/aws-lambda-rie@$LAMBDA_RIE_VERSION" >&2
mv "$bin_dir.tmp/aws-lambda-rie" "$binary"
rmdir "$bin_dir.tmp"
log "built in $(($(date +%s) - start)) s: $binary"
echo "$binary"
