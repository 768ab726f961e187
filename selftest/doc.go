// Package selftest is an MCP client harness: it spawns a server command,
// drives it over stdio through both protocol eras and the skill tools, sends
// robustness probes, and reports one pass/fail/skip line per check.
//
// It depends only on the wire protocol, so it can test any MCP server that
// offers the agent3md skill tools, not just this one.
package selftest
