#!/usr/bin/env bash
# Installs moto's server (a real HTTP implementation of AWS APIs, here for EventBridge Scheduler) from PyPI into a
# virtualenv under the user cache directory, once. Used by test/support/harness/moto.ts. Progress goes to stderr; the last
# line of stdout is the moto_server executable.
# Environment:
#   MOTO_VERSION  moto release on PyPI (default below)
set -euo pipefail

MOTO_VERSION="${MOTO_VERSION:-5.2.5}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
dir="$cache_root/moto"
server="$dir/venv/bin/moto_server"
marker="$dir/.complete-$MOTO_VERSION"

log() { echo "install-moto: $*" >&2; }

if [[ -f "$marker" && -x "$server" ]]; then
  echo "$server"
  exit 0
fi

# Test files run in parallel and may all install at once: one installs, the others wait and reuse its result.
mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9
if [[ -f "$marker" && -x "$server" ]]; then
  echo "$server"
  exit 0
fi

command -v python3 >/dev/null || { log "python3 (3.9+) is required"; exit 1; }
[[ -x "$dir/venv/bin/pip" ]] || python3 -m venv "$dir/venv"
log "installing moto[server]==$MOTO_VERSION from PyPI (first run downloads ~30 MB)"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
[[ -x "$server" ]] || { log "moto_server missing after the install"; exit 1; }
rm -f "$dir"/.complete-*
touch "$marker"
log "done: $server"
echo "$server"
