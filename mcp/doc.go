// Package mcp is the Model Context Protocol layer: it serves an agent's
// skills as MCP tools over newline-delimited JSON-RPC on stdio.
//
// It owns, in one file each:
//
//   - framing (stream.go): a jsonrpc2.ObjectStream over a bufio.Reader that
//     reads bounded lines with ReadSlice, answers malformed lines (-32700)
//     and invalid requests (-32600) itself with id null and keeps serving,
//     maps the client's ids (negative integers included) to private ones
//     for sourcegraph/jsonrpc2 and back, and handles 2025-03-26 batches;
//   - request bookkeeping (tracker.go): which requests still owe a response,
//     notifications/cancelled, and EOF waiting for in-flight responses;
//   - the protocol eras (protocol.go, lifecycle.go, server.go): the legacy
//     initialize handshake (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)
//     and the stateless 2026-07-28 revision (server/discover, per-request
//     _meta, resultType, cache hints), decided per request on one
//     connection, through one static method table and one function mapping
//     Go errors to JSON-RPC errors;
//   - the tools (tools.go, skilltools.go, listskills.go, filltool.go):
//     list_skills, route_skill, get_skill, resolve_skill and fill_skill,
//     whose names, arguments and text formats are a compatibility contract.
//     No tool answer passes Options.MaxAnswerBytes: list_skills pages under
//     it (query, limit, cursor), and any other answer that would pass it is
//     a tool error saying what to ask for instead;
//   - progress (progress.go): a request that carries _meta.progressToken
//     and waits on the routing index build gets notifications/progress.
//
// Requests are served concurrently (jsonrpc2.AsyncHandler); writes to
// stdout are serialized, one message per line. The agent (Options.Open)
// and the routing index load in the background: the handshake is answered
// from the head of the file (Options.Head) and never waits for them, and
// when the head carries the content hash the index's cache entry opens
// while the file loads (router.Prepare).
//
// It does not parse agent files, read bodies or score requests (packages
// loader and router do), and it does not own the process: signals, flags
// and exit codes are cmd's.
package mcp
