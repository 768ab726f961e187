#!/usr/bin/env bash
# Cross-compiles cmd/agent3md for every release target of .goreleaser.yaml
# (linux, darwin, windows x amd64, arm64), statically (CGO_ENABLED=0),
# writing nothing: a cheap CI check that every target still builds.
# Usage: scripts/release-check.sh [more go build flags]
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
failed=()
for t in "${targets[@]}"; do
  start=$(date +%s)
  if CGO_ENABLED=0 GOOS="${t%/*}" GOARCH="${t#*/}" go build -trimpath "$@" -o /dev/null ./cmd/agent3md; then
    echo "release-check: $t ok ($(( $(date +%s) - start ))s)"
  else
    echo "release-check: $t FAILED"
    failed+=("$t")
  fi
done
if (( ${#failed[@]} )); then
  echo "release-check: ${#failed[@]} target(s) do not build: ${failed[*]}" >&2
  exit 1
fi
echo "release-check: all ${#targets[@]} targets build"
