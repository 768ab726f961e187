#!/usr/bin/env bash
# bench/sync.sh — agent3md sync beside a cold git clone of the same folder
# (docs/sync.md §8). On a synthetic agent of N skills (bench/gen-agent.py),
# served by `agent3md serve` on loopback, it times RUNS rounds of:
#
#   first     sync into an empty folder        | git clone file://… (cold)
#   no-op     sync again, nothing changed      | git pull, nothing new
#   one skill sync after one skill's body moved | git pull of that commit
#
# and prints the median time of each, with the requests and bytes the
# sync's summary counts (sync) or the objects git received (git). The git
# repository holds `agent3md export --skills-dir` of the same agent,
# markers removed; a change is a new export of the changed agent, committed. Every round starts from empty folders; the serve
# process is warm (its digests are computed on the first round's
# listing, as they are for any server that has answered once).
#
# Usage:
#   bench/sync.sh                    # N=1000 RUNS=5, under a fresh mktemp -d
#   N=4000 RUNS=9 bench/sync.sh
#   WORK=/dev/shm/x bench/sync.sh    # put the folders somewhere else
set -euo pipefail
N=${N:-1000}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
BIN="$WORK/agent3md"
(cd "$ROOT" && go build -o "$BIN" ./cmd/agent3md)
python3 "$ROOT/bench/gen-agent.py" "$N" "$WORK/agent.3md" >/dev/null

# serve, on a free port read from its log
"$BIN" serve --addr 127.0.0.1:0 --cache-dir "$WORK/cache" "$WORK/agent.3md" 2>"$WORK/serve.log" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q 'msg=listening' "$WORK/serve.log" && break
  sleep 0.1
done
ADDR=$(sed -n 's/.*msg=listening addr=\([^ ]*\).*/\1/p' "$WORK/serve.log" | head -1)
URL="http://$ADDR/mcp"

# the git side: an export of the same agent, committed
EXP="$WORK/export"
"$BIN" export --skills-dir "$EXP" "$WORK/agent.3md" >/dev/null
find "$EXP" -name .agent3md-export.json -delete
git -C "$EXP" init -q
git -C "$EXP" add -A
git -C "$EXP" -c user.name=bench -c user.email=bench@localhost commit -qm export

now() { date +%s.%N; }
# sync_run NAME DIR: one timed sync; appends "name seconds requests bytes"
sync_run() {
  local t0 t1 out
  t0=$(now)
  out=$("$BIN" sync --json "$URL" "$2")
  t1=$(now)
  python3 -c 'import json,sys; s=json.loads(sys.argv[3]); print(sys.argv[1], float(sys.argv[2]), s["requests"], s["bytes"])' \
    "$1" "$(echo "$t1 - $t0" | bc)" "$out" >>"$WORK/samples"
}
# git_run NAME REPO CMD...: one timed git command; objects from git's
# "Total N" line, bytes as the growth of REPO's .git/objects (packed and
# zlib-compressed, as git moved them)
git_run() {
  local name=$1 repo=$2 t0 t1 err before after
  shift 2
  before=$(du -sb "$repo/.git/objects" 2>/dev/null | cut -f1 || echo 0)
  t0=$(now)
  err=$("$@" 2>&1 >/dev/null)
  t1=$(now)
  after=$(du -sb "$repo/.git/objects" | cut -f1)
  python3 -c '
import re,sys
m=re.findall(r"Total (\d+)", sys.argv[3])
print(sys.argv[1], float(sys.argv[2]), "objects=%s" % (m[-1] if m else 0), int(sys.argv[4]))' "$name" "$(echo "$t1 - $t0" | bc)" "$err" "$((after - ${before:-0}))" >>"$WORK/samples"
}

# wait_changed: until the server lists the edit (its reload is not timed)
wait_changed() {
  for _ in $(seq 200); do
    "$BIN" sync --dry-run --json "$URL" "$1" | grep -q '"updated":\["' && return
    sleep 0.05
  done
  echo "the server did not pick up the edit" >&2
  exit 1
}

: >"$WORK/samples"
for r in $(seq "$RUNS"); do
  rm -rf "$WORK/dir" "$WORK/clone"
  sync "$WORK" 2>/dev/null || true
  git_run "git-first" "$WORK/clone" git clone --progress "file://$EXP" "$WORK/clone"
  sync_run "sync-first" "$WORK/dir"
  sync_run "sync-noop" "$WORK/dir"
  git_run "git-noop" "$WORK/clone" git -C "$WORK/clone" pull --progress --ff-only
  # one skill's body moves (the last one's: no other skill's chain holds
  # it), on both sides: the served agent, and a new export committed
  python3 - "$WORK/agent.3md" "round$r" <<'PY'
import sys
p,w=sys.argv[1],sys.argv[2]
s=open(p).read()
i=s.rindex("kind=skill")
j=s.index("\n",i)
s=s[:j+1]+"Edited in "+w+".\n"+s[j+1:]
open(p,"w").write(s)
PY
  wait_changed "$WORK/dir"
  sync_run "sync-one" "$WORK/dir"
  "$BIN" export --force --skills-dir "$EXP" "$WORK/agent.3md" >/dev/null
  find "$EXP" -name .agent3md-export.json -delete
  git -C "$EXP" add -A
  git -C "$EXP" -c user.name=bench -c user.email=bench@localhost commit -qm "round$r"
  git_run "git-one" "$WORK/clone" git -C "$WORK/clone" pull --progress --ff-only
done

echo "agent3md sync vs git clone: $N skills, $RUNS runs, medians; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$WORK/samples" <<'PY'
import statistics,sys
rows={}
for line in open(sys.argv[1]):
    name,sec,req,byt=line.split()
    rows.setdefault(name,[]).append((float(sec),req,int(byt)))
def fmt(name):
    r=rows.get(name,[])
    if not r: return "-"
    t=statistics.median(x[0] for x in r)
    b=statistics.median(x[2] for x in r)
    req=r[len(r)//2][1]
    return "%7.3f s  %-12s %9.1f KiB" % (t, req, b/1024)
print("%-10s  %-36s %-36s" % ("", "agent3md sync (time, requests, bytes)", "git (time, objects, bytes)"))
for k in ("first","noop","one"):
    print("%-10s  %-36s %-36s" % (k, fmt("sync-"+k), fmt("git-"+k)))
PY
