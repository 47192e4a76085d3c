#!/usr/bin/env bash
# Regenerates test/support/fixtures/golden/gotemplate-golden.json from gotemplate-cases.json with Go's text/template + sprig.
# Needs Go and the Go module proxy; the golden file is checked in so the TypeScript tests run without Go.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel)"
cd "$here"
go run . "$root/test/support/fixtures/golden/gotemplate-cases.json" "$root/test/support/fixtures/golden/gotemplate-golden.json"
