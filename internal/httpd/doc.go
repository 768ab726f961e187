// Package httpd is the HTTP server under `agent3md serve`: listening,
// TLS, bearer tokens, Origin and Host checks, limits, per-request logging,
// /healthz, endpoint routing and graceful shutdown, with the watch that
// ends the process when a stop signal's graceful shutdown overruns or a
// second signal comes (WatchStopSignals; docs/http.md).
//
// It owns everything of the HTTP transport that is not MCP. The MCP
// endpoints come in as plain http.Handler values (Endpoints), so this
// package never imports the protocol package; the adapter that turns a
// POST body into a JSON-RPC answer lives beside the protocol core and uses
// the few hooks exported here: SetMCPMethod for the log line,
// StartStream for a request that becomes a long-lived stream (it leaves
// MaxConcurrent for MaxStreams; a GET's are counted apart in Load), ReserveAnswer for the memory an answer
// holds until it is written (one budget across requests, MaxAnswerMemory,
// answers.go), Draining for long-lived streams,
// ExtendWriteDeadline for streams that outlive the write timeout, and
// MethodNotAllowed for GET and DELETE.
//
// Every request goes through the same chain, outermost first:
//
//	log line and Observer record → /healthz (no auth, no agent data) →
//	Host → Origin → CORS (an allowed Origin's headers; a preflight
//	answered here) → bearer token → /metrics (Options.Metrics) →
//	endpoint or 404 → concurrency cap → body limit → endpoint handler
//
// Metrics are not counted here: an Options.Observer is told one
// RequestRecord per request (observe.go), and Server.Load is what the
// bounds hold, read on demand. Options.MetricsAddr moves /metrics to a
// listener of its own (metricsserve.go). Credential files are read so
// that they cannot block (credfile.go).
//
// Rejections carry an id-less JSON-RPC error body so an MCP client can
// show the message; the HTTP status is what a client acts on.
//
// A Server is safe for concurrent use: Reload may run while requests are
// served.
package httpd
