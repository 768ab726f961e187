// Package mcpclient is the module's one MCP client: it spawns a stdio server command
// (Spawn; SplitCommand reads one typed as a line, as --server takes it)
// or speaks to a Streamable HTTP endpoint (Dial: a bearer token,
// TLS with a custom CA through HTTPClientWithCA (or HTTPClientWithCAFile), the handshake-era
// session and the stateless 2026-07-28 revision with its per-request
// _meta), frames messages (newline-delimited lines with a bound on their
// length; event streams over HTTP), and matches answers to requests by
// id, so many requests may be in flight at once (Start, StartAll) and a
// server may answer them in any order.
//
// It owns the client's side of the wire and nothing else: transports
// (stdio, Streamable HTTP, event streams), framing, the handshake
// (Session), id correlation and dispatch of what the server sends. It
// judges no answer beyond what dispatch needs. Package selftest builds
// its checks on it, bench/mcpbench its measurements, and skillsync (the
// sync command, which mirrors a skill server through skills/list,
// resources/read, resources/directory/read and subscriptions/listen) its
// downloads; none of them frames or correlates on its own. It speaks the
// protocol alone (docs/protocol.md) and imports no package of this
// repository's server (mcp, loader, router), so it can drive any MCP
// server; cmd/agent3md's import test holds it to that.
//
// What the server sends is dispatched on the goroutine that reads it: a
// response to the Pending of its id (or, for StartRaw, to the oldest raw
// waiter when no request claims it), a request to Options.OnRequest on a
// goroutine of its own, in order (so a server that asks and waits never
// stalls the client), a notification to its subscription or Options.OnNotification,
// progress for a request to Pending.Progress; every finished request,
// answered or not, to Options.OnDone (what a client counts). Dispatch reads only a
// message's id and method: the waiter decodes its own answer, so a
// benchmark's clock (Timing) stops when the answer's bytes arrive, not
// after this client has parsed them.
//
// Bounds: a line, an HTTP answer or an event longer than
// Options.MaxLineBytes is read past without being held and fails the
// requests it could answer; a server that stops reading cannot stall a
// write past its context; the server's requests waiting for answers are
// capped; a subscription holds at most ListenBuffer unread notifications.
// A line that is not a message fails the requests in flight over stdio
// (it could be anyone's answer) and only its own POST's over HTTP.
package mcpclient
