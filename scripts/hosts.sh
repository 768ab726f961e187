#!/usr/bin/env bash
# Installs the MCP hosts the host tests drive (cmd/agent3md/hosts_test.go,
# docs/protocol.md §13): Claude Code (npm @anthropic-ai/claude-code), Codex
# CLI (@openai/codex) and Gemini CLI (@google/gemini-cli), pinned, with one
# `npm install` into a cache folder, never into the repository, and only
# when the pinned versions are not there yet. The tests run each host
# against `agent3md mcp` with its model API replaced by a scripted fake on
# 127.0.0.1; nothing here talks to a model.
#
# Usage:
#   scripts/hosts.sh --install     install if needed, print where each host is
#   scripts/hosts.sh --installed   exit 0 if all are installed, printing where
#                                  as --install does, 1 if not (no network)
#
# Output: one NAME=PATH line per host (claude=…, codex=…, gemini=…), the
# executable to run.
#
# Environment:
#   AGENT3MD_HOSTS_DIR     cache folder (default $XDG_CACHE_HOME/agent3md-hosts,
#                          or ~/.cache/agent3md-hosts)
#   CLAUDE_CODE_VERSION    @anthropic-ai/claude-code version (default below)
#   CODEX_VERSION          @openai/codex version (default below)
#   GEMINI_CLI_VERSION     @google/gemini-cli version (default below)
set -euo pipefail

CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
CODEX_VERSION="${CODEX_VERSION:-0.171.0}"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
dir="${AGENT3MD_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agent3md-hosts}"
modules="$dir/node_modules"

die() { echo "hosts: $*" >&2; exit 2; }

# Each host: its name, npm package, pinned version and executable. Claude
# Code's executable is a native binary its postinstall puts in place;
# Codex's is a Node launcher for a native binary from an optional
# dependency; Gemini CLI's is a Node bundle.
names=(claude codex gemini)
declare -A pkg=([claude]=@anthropic-ai/claude-code [codex]=@openai/codex [gemini]=@google/gemini-cli)
declare -A version=([claude]="$CLAUDE_CODE_VERSION" [codex]="$CODEX_VERSION" [gemini]="$GEMINI_CLI_VERSION")
declare -A exe=([claude]=bin/claude.exe [codex]=bin/codex.js [gemini]=bundle/gemini.js)

# pinned DIR VERSION: the package in DIR is at VERSION.
pinned() {
  [ -f "$1/package.json" ] && grep -q "\"version\": \"$2\"" "$1/package.json"
}

# host_installed NAME: the pinned package and its executable are there.
host_installed() {
  local d="$modules/${pkg[$1]}"
  pinned "$d" "${version[$1]}" && [ -f "$d/${exe[$1]}" ] && [ -x "$modules/.bin/$1" ]
}

installed() {
  local n
  for n in "${names[@]}"; do host_installed "$n" || return 1; done
}

install() {
  installed && return 0
  command -v npm >/dev/null || die "npm is needed to install the hosts (apt-get install npm)"
  mkdir -p "$dir"
  # A package.json of its own keeps npm from walking up into a project.
  [ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
  local specs=() n
  for n in "${names[@]}"; do specs+=("${pkg[$n]}@${version[$n]}"); done
  echo "hosts: installing ${specs[*]} into $dir" >&2
  # Claude Code declares node >= 22 but runs its native binary; the
  # engine check would only warn.
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "${specs[@]}" >&2 \
    || die "npm install failed (is the npm registry reachable?)"
  for n in "${names[@]}"; do
    host_installed "$n" || die "installed, but ${pkg[$n]}@${version[$n]} has no $modules/.bin/$n (its postinstall or its platform package may have failed)"
  done
}

where() {
  local n
  for n in "${names[@]}"; do echo "$n=$modules/.bin/$n"; done
}

case "${1:-}" in
  --installed) installed && where && exit 0 || exit 1 ;;
  --install) install; where ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "give --install or --installed (see --help)" ;;
esac
