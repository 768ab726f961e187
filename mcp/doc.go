// Package mcp is the Model Context Protocol layer: bounded newline-delimited
// JSON-RPC framing on top of sourcegraph/jsonrpc2, the legacy (initialize)
// and stateless 2026-07-28 protocol eras, and the methods that serve an
// agent's skills (tools today; resources and prompts have room to grow).
//
// It does not parse agent files or score requests; it calls package loader
// and package router for that.
package mcp
