// Package metrics is what `agent3md serve` exposes at /metrics for
// Prometheus (docs/http.md §13): requests by agent, MCP method and status,
// their latency, answer bytes, rejections and token failures by reason,
// the load on the server's bounds, agent and credential reloads, the TLS
// certificate's expiry, and the Go runtime and process collectors.
//
// It owns the metric names, their labels and the registry, which is a
// private one per Metrics (never Prometheus' global default), so tests
// and several servers in one process do not share counts. It counts
// through the hooks of the packages it watches — an httpd.Observer for
// requests and credential reloads, Server.Load read at scrape time for
// the bounds, mcp.Options.OnReload for agent reloads — and never sits in
// a request's path beyond one record per request.
//
// Label values come only from closed sets, so no client can grow the
// number of series: agent is a served agent's slug (or "none"), method a
// method the server serves (or "other", "none", "batch"), status an HTTP
// status the server wrote, reason one of httpd's constants.
package metrics
