// Package lint holds validate's checks that need the router: skills whose
// name, description and triggers the router cannot keep apart (each
// skill's description and trigger phrases routed against the whole agent,
// with the query route_skill uses), trigger phrases made only of everyday
// words, and descriptions of untriggered skills that never say when to
// use them. Every finding is a warning: the skill is served as written,
// and the finding says which skill it competes with and what to change
// (docs/format.md §12 and docs/skill-folders.md §3 list the rules).
//
// The package sits above router and loader (agentfile cannot route), so
// `agent3md validate` adds its findings to the file and folder reports;
// the MCP server and import do not run it (it costs a route per trigger).
package lint
