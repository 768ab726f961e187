#!/usr/bin/env bash
# bench/run.sh — the project's benchmark run: Go benchmarks of the parser,
# loader and router, then the MCP stdio benchmark (bench/mcpbench) against
# the real binary, on synthetic agents from bench/gen-agent.py.
#
# Usage:
#   bench/run.sh                 # sizes 10, 1,000, 4,000, 100,000; -count 5
#   QUICK=1 bench/run.sh         # sizes 10, 1,000, 4,000 only; -count 3
#   MCPBENCH_FLAGS="-runs 3" bench/run.sh   # extra flags for mcpbench
#   REF='bun /work/ref/src/mcp.ts' bench/run.sh
#       # also the side-by-side table against the reference server, run as
#       # "$REF FILE" (CorvidLabs/agent-3md on Bun: Bun is the npm package
#       # @oven/bun-linux-x64, its binary under node_modules/@oven/bun-linux-x64/bin/bun)
#
# Skill folders (docs/skill-folders.md), only when asked:
#   FOLDER=/work/ext/anthropics-skills/skills SKILLJACK=/work/ext/skilljack bench/run.sh
#       # serve FOLDER beside skilljack-mcp (node $SKILLJACK/dist/index.js DIR):
#       # spawn → initialize, SKILL.md reads, peak RSS; without a built
#       # skilljack (or node) ours is measured alone, with a message
#   FOLDER_SIZES=10000 bench/run.sh
#       # a generated folder of 10,000 skills (bench/gen-skills.py): scan +
#       # first route, cold and warm, and peak RSS
#   FOLDERS_ONLY=1 FOLDER=... bench/run.sh   # the folder runs alone
#   FOLDERBENCH_FLAGS="-runs 9 -reads 500"    # extra flags for them
# How to get skilljack-mcp and anthropics/skills: bench/README.md.
#
# The comparison alone, from the repository root:
#   go run ./bench/mcpbench -ref 'bun /work/ref/src/mcp.ts' -runs 5
# prints, for 10, 1,000 and 4,000 skills, the time per pipelined request of
# each kind (ping, tools/list, list_skills, get_skill, resolve_skill,
# route_skill), spawn → initialize, spawn → first route on an empty cache and
# peak RSS: ours, the reference's, and ours / reference. Without -ref,
# -compare prints our column alone. An A/B of two agent3md builds, cold
# starts only:
#   go run ./bench/mcpbench -bin ./agent3md -ab /tmp/agent3md-before -sizes 4000 -runs 9 -kinds none
#
# The HTTP benchmark alone (agent3md serve, 1/8/64 keep-alive clients, 4,000
# skills):
#   go run ./bench/mcpbench -http -runs 3
#
# Output goes to the terminal and to bench/out/go-bench.txt,
# bench/out/mcp-bench.txt and bench/out/http-bench.txt. The machine is shared and noisy: compare medians,
# and rerun before trusting a single figure. Exits non-zero when any step
# failed, after running the others.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
out=bench/out
mkdir -p "$out"

if [[ "${QUICK:-0}" == 1 ]]; then
	sizes=(10 1000 4000)
	count=3
	# Size sub-benchmarks are named skills=N or n=N (-bench matches each
	# /-separated level on its own); leave out the 100,000 ones.
	bench_re='.*/(skills|n)=(10|1000|4000)$'
	mcp_flags=(-sizes 10,1000,4000)
else
	sizes=(10 1000 4000 100000)
	count=5
	bench_re='.'
	# A cold 100,000-skill start builds the index (seconds to a minute on a
	# shared machine): 3 cold runs instead of 7.
	mcp_flags=(-sizes 10,1000,4000,100000 -cold-runs 3)
fi
# Word splitting of MCPBENCH_FLAGS is intended: it holds several flags.
# shellcheck disable=SC2206
mcp_flags+=(${MCPBENCH_FLAGS:-})

cpu_model() {
	if [[ -r /proc/cpuinfo ]]; then
		grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'
	else
		sysctl -n machdep.cpu.brand_string 2>/dev/null || echo unknown
	fi
}

echo "== machine"
echo "cpus:     $(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
echo "cpu:      $(cpu_model)"
echo "go:       $(go version)"
echo "load:     $(uptime | sed 's/.*load average/load average/')"
echo "commit:   $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "mode:     $([[ "${QUICK:-0}" == 1 ]] && echo QUICK || echo full)"
echo

status=0

# mcpbench builds ./cmd/agent3md once here and is handed the binary.
bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
if ! go build -o "$bin_dir/agent3md" ./cmd/agent3md; then
	echo "go build ./cmd/agent3md failed: no MCP benchmark" >&2
	exit 1
fi

# folder_runs measures FOLDER (beside skilljack-mcp when SKILLJACK holds a
# build) and the generated folders of FOLDER_SIZES, when either is set.
folder_runs() {
	local args=()
	if [[ -n "${FOLDER:-}" ]]; then
		# -floor adds the least stdio server: what no server goes under here.
		args+=(-folder "$FOLDER" -floor)
		local sj="${SKILLJACK:-}/dist/index.js"
		if [[ -z "${SKILLJACK:-}" ]]; then
			echo "(SKILLJACK unset: $FOLDER is measured without skilljack-mcp; see bench/README.md)"
		elif [[ ! -f "$sj" ]] || ! command -v node >/dev/null; then
			echo "(skipping skilljack-mcp: no $sj or no node on PATH; build it with 'npm install && npm run build', see bench/README.md)"
		else
			args+=(-ref-folder "node $sj")
		fi
	fi
	if [[ -n "${FOLDER_SIZES:-}" ]]; then
		args+=(-folder-sizes "$FOLDER_SIZES")
	fi
	if [[ ${#args[@]} -eq 0 ]]; then
		return 0
	fi
	# A cold 10,000-skill start scans and indexes for seconds: 5 runs,
	# unless FOLDERBENCH_FLAGS (extra mcpbench flags) says otherwise.
	# shellcheck disable=SC2206
	args+=(-runs 5 ${FOLDERBENCH_FLAGS:-})
	echo "== skill folders (go run ./bench/mcpbench ${args[*]}) -> $out/folder-bench.txt"
	if ! go run ./bench/mcpbench -bin "$bin_dir/agent3md" -dir "$out" "${args[@]}" | tee "$out/folder-bench.txt"; then
		echo "the folder benchmark reported failures; see FAILED lines above" >&2
		status=1
	fi
	echo
}

if [[ "${FOLDERS_ONLY:-0}" == 1 ]]; then
	folder_runs
	exit "$status"
fi

echo "== synthetic agents ($out/agent-N.3md)"
for n in "${sizes[@]}"; do
	f="$out/agent-$n.3md"
	if [[ ! -s "$f" ]]; then
		echo "generating $f"
		python3 bench/gen-agent.py "$n" "$f.tmp"
		mv "$f.tmp" "$f"
	fi
	ls -lh "$f" | awk '{print $5, $NF}'
done
echo

echo "== Go benchmarks (-count $count) -> $out/go-bench.txt"
if ! go test -run '^$' -bench "$bench_re" -benchmem -count "$count" \
	./agentfile/ ./loader/ ./router/ 2>&1 | tee "$out/go-bench.txt"; then
	echo "go test -bench failed; see the output above" >&2
	status=1
fi
echo
benchstat=$(command -v benchstat || true)
gobin="$(go env GOPATH)/bin/benchstat"
if [[ -z "$benchstat" && -x "$gobin" ]]; then
	benchstat=$gobin
fi
if [[ -n "$benchstat" ]]; then
	echo "== benchstat"
	"$benchstat" "$out/go-bench.txt" || status=1
else
	echo "(benchstat not on PATH: 'go install golang.org/x/perf/cmd/benchstat@latest'"
	echo " puts it in \$(go env GOPATH)/bin for a summary with confidence intervals)"
fi
echo

echo "== MCP stdio benchmark (go run ./bench/mcpbench ${mcp_flags[*]}) -> $out/mcp-bench.txt"
if ! go run ./bench/mcpbench -bin "$bin_dir/agent3md" -dir "$out" "${mcp_flags[@]}" | tee "$out/mcp-bench.txt"; then
	echo "mcpbench reported failures; see FAILED lines above" >&2
	status=1
fi
echo
echo "== HTTP benchmark (go run ./bench/mcpbench -http -runs $count) -> $out/http-bench.txt"
if ! go run ./bench/mcpbench -bin "$bin_dir/agent3md" -dir "$out" -http -runs "$count" | tee "$out/http-bench.txt"; then
	echo "the HTTP benchmark reported failures; see FAILED lines above" >&2
	status=1
fi
if [[ -n "${REF:-}" ]]; then
	echo
	echo "== side by side with the reference ($REF FILE) -> $out/compare.txt"
	if ! go run ./bench/mcpbench -bin "$bin_dir/agent3md" -dir "$out" -ref "$REF" \
		-sizes 10,1000,4000 -runs "$count" | tee "$out/compare.txt"; then
		echo "the comparison reported failures; see FAILED lines above" >&2
		status=1
	fi
fi
echo
folder_runs
exit "$status"
