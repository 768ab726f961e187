#!/usr/bin/env python3
"""Pipelined resources/read throughput of stdio MCP servers, with a lean client.

    pipe-read.py [--reads N] [--runs K] [--uri skill://pdf] -- NAME=CMD ... 

Each NAME=CMD is a server command line (split on spaces) that serves the
same skills. For each, K runs: initialize, 50 untimed reads, then N reads
written at once while the answers are read back as raw lines (never
decoded: the client's cost stays near a pipe read). Prints the median
time per read. bench/mcpbench -folder measures the same thing (its
"pipelined" row) with a client that costs more per line; this one shows
how far below that floor a server's own cost goes.

Example (docs in bench/README.md):
    python3 bench/pipe-read.py -- "ours=agent3md mcp --no-watch SKILLS" \\
        "skilljack=node /path/skilljack-mcp/dist/index.js SKILLS"
"""
import argparse, json, statistics, subprocess, threading, time


def one_run(cmd, reads, uri):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=1 << 20)

    def send(o):
        p.stdin.write((json.dumps(o) + "\n").encode())
        p.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pipe-read", "version": "1"}}})
        p.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i in range(50):
            send({"jsonrpc": "2.0", "id": 100000 + i, "method": "resources/read", "params": {"uri": uri}})
        got = 0
        while got < 50:
            if b'"result"' in p.stdout.readline():
                got += 1
        batch = b"".join((json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "resources/read",
                                      "params": {"uri": uri}}) + "\n").encode() for i in range(reads))
        start = time.perf_counter()
        writer = threading.Thread(target=lambda: (p.stdin.write(batch), p.stdin.flush()))
        writer.start()
        got = 0
        while got < reads:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"{cmd[0]}: stdout closed after {got} answers")
            if b'"result"' in line:
                got += 1
            elif b'"error"' in line:
                raise SystemExit(f"{cmd[0]}: an error answer: {line[:200]!r}")
        elapsed = time.perf_counter() - start
        writer.join()
        return elapsed / reads * 1e6
    finally:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--uri", default="skill://pdf")
    ap.add_argument("servers", nargs="+", help="NAME=CMD")
    a = ap.parse_args()
    res = {}
    for run in range(a.runs):  # servers take turns within each run
        for spec in a.servers:
            name, _, cmd = spec.partition("=")
            res.setdefault(name, []).append(one_run(cmd.split(), a.reads, a.uri))
    base = None
    for name, xs in res.items():
        m = statistics.median(xs)
        base = base or m
        print(f"{name:12s} {m:9.1f} µs per pipelined read (median of {len(xs)}; runs {', '.join(f'{x:.1f}' for x in xs)})  ratio to first {m / base:.3f}×")


if __name__ == "__main__":
    main()
