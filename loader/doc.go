// Package loader serves one agent file: it opens the file, scans it into an
// agentfile.Catalog, keeps it open, and reads plane bodies on demand by byte
// span, checking each against the catalog's CRC (re-scanning once if the file
// changed underneath). On top of that it answers the agent3md/1 operations:
// get a skill by name or z, resolve its dependency chain, fill its command
// template with shell-quoted values, and render it as an Agent Skills
// SKILL.md with its references.
//
// It does not parse the format itself (package agentfile), route requests
// (package router) or speak any protocol (package mcp).
package loader
