#!/usr/bin/env bash
# Differential check of the 3md parser against the reference's, on real
# documents: every FILE is parsed by the reference implementation
# (CorvidLabs/agent-3md, src/threemd.ts, run under Bun) and by
# `agent3md parse --json`; any file where the document, the cross-plane
# links or the error's canonical name differ is printed, and the exit
# status is 1. Every file both parse is then projected with the
# reference's src/export.ts --bodies and `agent3md export --bodies`, which
# must agree byte for byte (a file we refuse for duplicate skill names is
# counted apart: docs/format.md §8). The conformance vectors and
# FuzzParse (agentfile) pin the rules; this runs them on whatever corpus
# you have, for example the several hundred example documents of
# CorvidLabs/3md.
#
# Usage:
#   scripts/refdiff.sh REF_CHECKOUT FILE...
#
# Example:
#   git clone https://github.com/CorvidLabs/agent-3md /tmp/agent-3md
#   git clone https://github.com/CorvidLabs/3md /tmp/3md
#   scripts/refdiff.sh /tmp/agent-3md $(find /tmp/3md -name '*.3md')
#
# Needs Go and Bun on PATH (scripts/conformance.sh --install puts a Bun in
# its cache; BUN names another).
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
ref="$1"; shift
ref="$(cd "$ref" && pwd)"
threemd="$ref/src/threemd.ts"
[ -f "$threemd" ] || { echo "refdiff: $threemd not found: REF_CHECKOUT must be a checkout of CorvidLabs/agent-3md" >&2; exit 2; }
bun="${BUN:-$(command -v bun || true)}"
[ -n "$bun" ] || { echo "refdiff: Bun not found: put it on PATH or set BUN (scripts/conformance.sh --install provides one)" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/agent3md" ./cmd/agent3md)
"$bun" "$root/scripts/refdiff.ts" "$ref" "$tmp/agent3md" "$@"
