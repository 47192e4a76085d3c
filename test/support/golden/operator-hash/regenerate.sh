#!/usr/bin/env bash
# Regenerates test/support/fixtures/golden/operator-hash-golden.json from operator-hash-cases.json with Go's encoding/json
# and the Cluster API Operator's own v1alpha2 types (sigs.k8s.io/cluster-api-operator v0.29.0 from the Go module
# proxy). Needs Go; the golden file is checked in so the TypeScript tests run without Go.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel)"
cd "$here"
go run . "$root/test/support/fixtures/golden/operator-hash-cases.json" "$root/test/support/fixtures/golden/operator-hash-golden.json"
