// Package mcp is the Model Context Protocol layer: one protocol core that
// serves an agent's skills as tools, resources, prompts, completions and
// the skills extension, with transports as thin adapters over it —
// newline-delimited JSON-RPC on stdio (Serve) and stateless Streamable
// HTTP (Server.HTTPHandler). docs/protocol.md is what clients can rely on;
// docs/architecture.md §6 is how it is built.
//
// It owns, by concern:
//
//   - the wire (wire.go): one JSON-RPC message checked in one pass
//     (-32700 / -32600 with id null for what is not a request, ids of
//     every valid kind echoed byte for byte), one answer or notification
//     encoded once; the only file that imports sourcegraph/jsonrpc2;
//   - the connection (conn.go): a reader (reader.go) reads input up to
//     Options.MaxPendingBytes and answers cheap requests as they are
//     read; a scheduler (scheduler.go: queue, held, in flight, its
//     invariants in its doc comment) runs the rest on at most
//     Options.MaxInFlight handler goroutines; an outbox (outbox.go:
//     chunks and unwritten bytes) feeds one writer goroutine;
//     notifications/cancelled applied as read (tracker.go); 2025-03-26
//     batches within one answer's bound (batch.go; over HTTP
//     httpbatch.go); EOF answering what was read while the client reads,
//     cutting what is still owed a grace period later (eof.go);
//   - the transports: stdio lines (reader.go, outbox.go) and HTTP (http.go, over
//     Server.Exchange in exchange.go: one message, one session, one
//     answer; httpevents.go: a handshake-era client's GET stream of
//     list_changed, fed by the change streams of changestreams.go);
//   - the shared server (server.go: the server, a call, the method table's
//     types; configured by options.go, built and started by serve.go,
//     which also holds Serve; the first load in load.go; one request's
//     era, checks and handler in dispatch.go) and the per-connection
//     session (session.go): the agent generations and registered features
//     on one side; the negotiated revision, client capabilities,
//     subscriptions and open listens and the way back to the client on
//     the other;
//   - features (feature.go) registering their methods and capability, so
//     capabilities() is derived: lifecycle (lifecycle.go: initialize,
//     ping, server/discover, 2026-07-28 stamping), tools (tools.go
//     for tools/list and tools/call, tool.go for what a tool is, then one
//     file per tool: listskills.go, routeskill.go, getskill.go,
//     resolveskill.go, fillskill.go), resources
//     (resources.go), the skills extension (skillsext.go), prompts and
//     completion (prompts.go), subscriptions/listen (subscriptions.go);
//     a skill's served files, their digests and the prompt XML in
//     skillfiles.go, the catalog-derived parts of tool descriptions in
//     descs.go;
//     params decoded by one helper (params.go), lists paged by one cursor
//     helper (cursor.go);
//   - generations and live reload (generation.go, reload.go): a request uses
//     the agent generation in force when it first needs the agent; a change
//     to the file or folders the source's Changes name (watched through
//     internal/watch, stopped with the server), or one the caller
//     signals, opens a whole new generation (with the Changes' reopen),
//     indexes it off the request path, swaps it in and tells every
//     session what its revision defines;
//   - answers encoded once per generation (cache.go) and progress while the
//     routing index builds (progress.go).
//
// The agent (an Opener source, options.go) and the routing index load in
// the background: the handshake is answered from the head of the file and
// never waits for the index.
//
// It does not parse agent files, read bodies, notice file changes or score
// requests (packages loader, internal/watch and router do), and it does
// not own the process: signals, flags and exit codes are cmd's.
package mcp
