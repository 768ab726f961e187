// Package cases reads routing case files — requests a person writes by
// hand, each with the skill it should reach (or none) — and scores an
// agent's routing against them: per case the top matches and their
// tiers, then the top-1, top-3 and false-match rates (docs/cli.md,
// "agent3md eval"; the grammar is in docs/writing-skills.md §4).
//
// The cases are routed by the caller's Route function, which must be the
// one route_skill answers with (mcp.RouteQuery over router.ForAgent), so
// a figure here is a figure of what a model is given.
package cases
