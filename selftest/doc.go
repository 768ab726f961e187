// Package selftest is an MCP client harness: it spawns a server command,
// drives it over stdio through both protocol eras and the skill tools, sends
// robustness probes, and reports one pass/fail/skip line per check.
//
// It depends only on the wire protocol, so it can test any MCP server that
// offers the agent3md skill tools, not just this one.
//
// Run spawns the server three times: a legacy session (initialize with
// 2025-11-25) that carries most checks, a fresh one initialized with
// 2025-03-26, and a fresh one spoken to only in the stateless 2026-07-28
// revision. The checks, by name:
//
//	legacy/initialize, legacy/serverInfo, legacy/capabilities, legacy/ping
//	tools/list                     the five skill tools with object schemas
//	tool/list_skills               the JSON catalog (object or bare array)
//	tool/route_skill               each skill's first trigger routes to it
//	tool/get_skill                 every body, non-empty, = Options.Expect
//	tool/resolve_skill             "### name" first, = Options.ExpectResolve
//	tool/fill_skill                every value, shell-quoted, in the command
//	tool/fill_skill-missing        missing required inputs are reported
//	error/unknown-tool             JSON-RPC -32602
//	error/unknown-skill            isError result naming the skill
//	error/missing-argument         isError result
//	probe/malformed-json           -32700, id null, then a ping still works
//	probe/object-id                -32600, id null, then a ping
//	probe/oversized-line           an error for an Options.MaxLineBytes line
//	probe/unknown-method           -32601, then a ping
//	probe/notification             no reply to notifications
//	exit/eof                       exit status 0 soon after stdin closes
//	legacy/initialize-2025-03-26   echoed, or another legacy revision
//	modern/discover                resultType, supportedVersions, cache hints
//	modern/unsupported-version     -32022 with data.supported
//	modern/tools-list              the tools, with resultType and cache hints
//
// A check that needs something the server does not declare (the tools
// capability, the 2026-07-28 revision) is skipped, as is one whose input an
// earlier failed check should have provided; the detail says which. A
// server that crashes costs the check that crashed it: the next check
// starts a fresh session. Every request has a timeout; after repeated
// timeouts the remaining legacy checks fail fast instead of waiting again.
package selftest
