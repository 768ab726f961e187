// Package mcp is the Model Context Protocol layer: it serves an agent's
// skills as MCP tools over newline-delimited JSON-RPC on stdio.
//
// It owns, by concern:
//
//   - the stdio transport (stream.go): bounded lines read with ReadSlice;
//     an oversized line is discarded without being kept;
//   - the wire (wire.go): one JSON-RPC message checked in one pass
//     (-32700 / -32600 with id null for what is not a request, ids of
//     every valid kind, negative integers included, echoed byte for byte),
//     and one answer encoded once, straight into the output buffer;
//   - the connection (conn.go, tracker.go): requests answered inline when
//     they are cheap, queued for at most Options.MaxInFlight handler
//     goroutines otherwise, while stdin is still read up to a budget of
//     pending bytes (Options.MaxPendingBytes); notifications/cancelled
//     applied as it is read; 2025-03-26 batches; one writer goroutine;
//     stdin EOF waiting a grace period for running requests, then
//     cancelling them;
//   - the protocol eras (protocol.go, lifecycle.go, server.go): the legacy
//     initialize handshake (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25),
//     one per connection, requests before it served as 2025-11-25, and the
//     stateless 2026-07-28 revision (server/discover, per-request _meta,
//     resultType, cache hints), decided per request on one connection,
//     through one static method table and one function mapping Go errors to
//     JSON-RPC errors; answers that depend only on the catalog (tools/list,
//     list_skills) encoded once per catalog (cache.go);
//   - the tools (tools.go, skilltools.go, listskills.go, filltool.go):
//     list_skills, route_skill, get_skill, resolve_skill and fill_skill,
//     whose names, arguments and text formats are a compatibility contract.
//     No tool answer passes Options.MaxAnswerBytes: list_skills pages under
//     it (query, limit, cursor), and any other answer that would pass it is
//     a tool error saying what to ask for instead;
//   - progress (progress.go): a request that carries _meta.progressToken
//     and waits on the routing index build gets notifications/progress.
//
// The agent (Options.Open)
// and the routing index load in the background: the handshake is answered
// from the head of the file (Options.Head) and never waits for them, and
// when the head carries the content hash the index's cache entry opens
// while the file loads (router.Prepare).
//
// It does not parse agent files, read bodies or score requests (packages
// loader and router do), and it does not own the process: signals, flags
// and exit codes are cmd's.
package mcp
