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
//     encoded once, the JSON appenders the common answers are written
//     with; the only file that imports sourcegraph/jsonrpc2;
//   - the connection (conn.go: its state and lifetime): the stdio
//     transport's two ends in stdio.go, a reader that reads input up to
//     Options.MaxPendingBytes and answers cheap requests as they are read,
//     and an outbox (chunks and unwritten bytes) that feeds one writer
//     goroutine; a scheduler (scheduler.go: queue, held, in flight, its
//     invariants in its doc comment) runs the rest on at most
//     Options.MaxInFlight handler goroutines; notifications/cancelled
//     applied as read (tracker.go); 2025-03-26 batches within one
//     answer's bound (batch.go; over HTTP httpbatch.go); EOF answering
//     what was read while the client reads, cutting what is still owed a
//     grace period later (eof.go);
//   - the HTTP transport (http.go, over Server.Exchange in exchange.go:
//     one message, one session, one answer; httpevents.go: a
//     handshake-era client's GET stream of list_changed, fed by the
//     change streams of changestreams.go);
//   - the shared server and the per-connection session (server.go: the
//     server, a call, the method table's types, the session: negotiated
//     revision, client capabilities, subscriptions, open listens and the
//     way back to the client), configured by options.go, built and
//     started by serve.go, which also holds Serve; the first load in
//     load.go; one request in dispatch.go: its era and checks, its params
//     decoded by one helper (bind), its answer kept per generation when
//     it may be (answerCache), its handler;
//   - features (feature.go) registering their methods and capability, so
//     capabilities() is derived: lifecycle (lifecycle.go: initialize,
//     ping, server/discover, 2026-07-28 stamping), tools (tools.go: what
//     a tool is, how a call is checked, decoded and run, tools/list and
//     tools/call; toolschema.go: the schemas derived from a tool's Go
//     types; then one file per tool: listskills.go, routeskill.go,
//     getskill.go, resolveskill.go, fillskill.go), resources
//     (resources.go), the skills extension (skillsext.go), prompts and
//     completion (prompts.go), subscriptions/listen (subscriptions.go);
//     a skill's served files, their digests and the prompt XML in
//     skillfiles.go, the catalog-derived parts of tool descriptions in
//     descs.go; lists paged by one cursor helper (cursor.go);
//   - generations and live reload (generation.go, reload.go): a request
//     uses the agent generation in force when it first needs the agent; a
//     generation's routing index builds in the background, and a request
//     waiting for it is sent its progress (generation.go); a change to
//     the file or folders the source's Changes name (watched through
//     internal/watch, stopped with the server), or one the caller
//     signals, opens a whole new generation (with the Changes' reopen),
//     indexes it off the request path, swaps it in and tells every
//     session what its revision defines.
//
// One route_skill call over stdio runs, in this package, stdio.go,
// scheduler.go, dispatch.go, server.go, generation.go, tools.go,
// routeskill.go and wire.go: `go run -cover -covermode=atomic
// -coverpkg=./... ./scripts/callpath` lists the files, and `go run
// ./scripts/backrefs` counts the references between this package's files
// that point up against the call's flow (docs/architecture.md §6).
//
// The agent (an Opener source, options.go) and the routing index load in
// the background: the handshake is answered from the head of the file and
// never waits for the index.
//
// It does not parse agent files, read bodies, notice file changes or score
// requests (packages loader, internal/watch and router do), and it does
// not own the process: signals, flags and exit codes are cmd's.
package mcp
