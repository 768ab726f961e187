// Package selftest is an MCP client harness: it spawns a server command
// and drives it over stdio, or POSTs to a Streamable HTTP endpoint
// (Options.URL), through both protocol eras, calls its tools, sends
// robustness probes, and reports one pass/fail/skip line per check.
//
// It depends only on the wire protocol, so it can test any stdio or HTTP
// MCP server, and it judges each one by what it offers. Package
// mcpclient spawns or dials the server, frames and correlates the
// messages (conn.go adds the harness's timeouts); the checks do not know
// which transport carries them, except the stdio-only ones (skipped over
// HTTP) and the http/ ones (run only over HTTP). Every server gets the
// generic checks: the handshake, the tools/list shape, each listed tool
// called with arguments built from its input schema, resources and prompts
// when declared, error answers and probes. A server whose tools mark it as
// an agent-3md server (it lists route_skill or resolve_skill) also gets the
// contract checks on list_skills, route_skill, get_skill and resolve_skill,
// and on fill_skill when it offers that optional tool; on any other server
// those are skipped with "not an agent-3md server: contract checks
// skipped". A server that serves skills as skill:// resources, prompts
// with completion, or the io.modelcontextprotocol/skills extension gets
// the skill checks (resources/skill-md, skills/list, …): sizes and
// digests against the exact bytes read, frontmatter names, the never
// listed skill://<path> alias, paging, and the era markers of each
// result; each is skipped when its capability is not declared.
//
// Being fair means: params are omitted, never sent as null; version
// negotiation is judged by the specification's rule alone (any handshake
// revision is a legal answer) and later checks by the revision
// negotiated; requests the server sends the client (roots/list, ping,
// sampling/createMessage, …) are answered at once, so a server that asks
// never stalls the run.
//
// Run spawns the server (or opens a new HTTP client) at least three times: a legacy session
// (initialize with 2025-11-25) that carries most checks, a fresh one
// initialized with 2025-03-26, and a fresh one spoken to only in the
// stateless 2026-07-28 revision; a legacy session that crashes or times
// out is replaced by a fresh one. The skill catalog is read page by page and the per-skill
// checks visit an evenly spread, deterministic sample (Options.Sample), so
// a 100,000-skill agent is checked in bounded time.
//
// A check that needs something the server does not declare is skipped, as
// is one whose input an earlier failed check should have provided; the
// detail says which. A server that crashes costs the check that crashed
// it: the next check starts a fresh session. Every request has a timeout;
// after repeated timeouts the remaining legacy checks fail fast instead of
// waiting again. docs/selftest.md lists every check and the JSON report's
// fields.
package selftest
