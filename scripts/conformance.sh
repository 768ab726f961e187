#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# under Bun against a running `agent3md serve` (docs/http.md §9).
#
# --install also installs the official MCP TypeScript SDK
# (npm @modelcontextprotocol/sdk), pinned, for the stdio interop test
# TestInteropTypeScriptSDK in cmd/agent3md, which drives `agent3md mcp` with
# the SDK's Client under Bun (cmd/agent3md/testdata/tsclient.mjs).
#
# All packages are installed with npm into a cache folder, never into the
# repository, and only when the pinned versions are not there yet.
#
# Usage:
#   scripts/conformance.sh --url URL [--spec-version V] SCENARIO...
#   scripts/conformance.sh --install     install if needed, print where
#   scripts/conformance.sh --installed   exit 0 if all is installed, printing where
#                                        as --install does, 1 if not (no network)
#
# Example:
#   agent3md serve examples/devtools.3md &
#   scripts/conformance.sh --url http://localhost:8765/mcp \
#     server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection
#   scripts/conformance.sh --url http://localhost:8765/mcp --spec-version 2026-07-28 \
#     tools-list resources-list prompts-list dns-rebinding-protection
#
# Without --spec-version the suite runs a scenario at 2025-11-25 (or at the
# revision that introduced it); scenarios removed in 2026-07-28
# (server-initialize, ping) are skipped, exit 0, at --spec-version 2026-07-28.
# --url needs only the suite and Bun: a cache installed before the SDK was
# added still runs offline.
#
# Environment:
#   AGENT3MD_CONFORMANCE_DIR  cache folder (default $XDG_CACHE_HOME/agent3md-conformance,
#                             or ~/.cache/agent3md-conformance)
#   CONFORMANCE_VERSION       suite version (default below; 0.1.x lacks 2026-07-28)
#   TS_SDK_VERSION            TypeScript SDK version (default below)
#   BUN_VERSION               Bun version (default below)
set -euo pipefail

CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.2.0-alpha.12}"
TS_SDK_VERSION="${TS_SDK_VERSION:-1.32.2}"
BUN_VERSION="${BUN_VERSION:-1.4.5}"
dir="${AGENT3MD_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agent3md-conformance}"
suite="$dir/node_modules/@modelcontextprotocol/conformance"
entry="$suite/dist/index.js"
# The SDK is also a dependency of the suite; naming it pins the version
# the interop test runs, whatever version the suite would pull in.
sdk="$dir/node_modules/@modelcontextprotocol/sdk"

die() { echo "conformance: $*" >&2; exit 2; }

# bun_pkg names the npm package that ships Bun for this machine.
bun_pkg() {
  local arch libc=""
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) die "no Bun package for $(uname -m); install Bun yourself and put it on PATH" ;;
  esac
  [ "$(uname -s)" = Linux ] || die "this script installs Bun on Linux only; elsewhere install Bun and put it on PATH"
  if ldd --version 2>&1 | grep -qi musl; then libc=-musl; fi
  echo "@oven/bun-linux-$arch$libc"
}

bun_bin() { echo "$dir/node_modules/$(bun_pkg)/bin/bun"; }

# pinned DIR VERSION: the package in DIR is at VERSION.
pinned() {
  [ -f "$1/package.json" ] && grep -q "\"version\": \"$2\"" "$1/package.json"
}

# suite_installed: the pinned suite is there, and a Bun to run it.
suite_installed() {
  [ -f "$entry" ] || return 1
  pinned "$suite" "$CONFORMANCE_VERSION" || return 1
  command -v bun >/dev/null || [ -x "$(bun_bin)" ]
}

# installed: the suite, Bun and the pinned TypeScript SDK.
installed() {
  suite_installed && pinned "$sdk" "$TS_SDK_VERSION"
}

install() {
  installed && return 0
  command -v npm >/dev/null || die "npm is needed to install the suite and the SDK (apt-get install npm)"
  mkdir -p "$dir"
  # A package.json of its own keeps npm from walking up into a project.
  [ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
  local pkgs=("@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/sdk@$TS_SDK_VERSION")
  command -v bun >/dev/null || pkgs+=("$(bun_pkg)@$BUN_VERSION")
  echo "conformance: installing ${pkgs[*]} into $dir" >&2
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "${pkgs[@]}" >&2 \
    || die "npm install failed (is the npm registry reachable?)"
  installed || die "installed, but $entry, $sdk at $TS_SDK_VERSION or Bun is still missing"
}

where() { echo "bun=$(bun_cmd)"; echo "suite=$entry"; echo "sdk=$sdk"; }

bun_cmd() {
  if command -v bun >/dev/null; then command -v bun; else bun_bin; fi
}

url="" spec=() scenarios=()
while (($#)); do
  case "$1" in
    --installed) installed && where && exit 0 || exit 1 ;;
    --install) install; where; exit 0 ;;
    --url) url="${2:?--url needs a value}"; shift 2 ;;
    --spec-version) spec=(--spec-version "${2:?--spec-version needs a value}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown flag $1 (see --help)" ;;
    *) scenarios+=("$1"); shift ;;
  esac
done
[ -n "$url" ] || die "give --url URL of the MCP endpoint, e.g. http://localhost:8765/mcp"
((${#scenarios[@]})) || die "name at least one scenario, e.g. server-initialize"

suite_installed || install
bun="$(bun_cmd)"
passed=() failed=()
for sc in "${scenarios[@]}"; do
  echo "== conformance: $sc ${spec[*]}"
  start=$(date +%s%N)
  if "$bun" "$entry" server --url "$url" --scenario "$sc" "${spec[@]}"; then
    passed+=("$sc")
  else
    failed+=("$sc")
  fi
  echo "== conformance: $sc took $((($(date +%s%N) - start) / 1000000)) ms"
done
echo "conformance: ${#passed[@]} scenario(s) passed, ${#failed[@]} failed${failed:+: ${failed[*]}}"
((${#failed[@]} == 0))
