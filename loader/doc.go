// Package loader serves one agent file: it opens the file, scans it into an
// agentfile.Catalog, keeps it open, and reads plane bodies on demand by byte
// span, checking each against the catalog's CRC-32C. On top of that it
// answers the agent3md/1 operations (docs/architecture.md §4): get a skill
// by name, z or slug in O(1), resolve its dependency chain (docs/format.md
// §11), fill its command template with shell-quoted values (docs/format.md
// §9), render it as an Agent Skills SKILL.md with its references
// (docs/format.md §15), and give the agent's agent3md/1 JSON projection
// (Projection, what export prints) whichever source it was opened from.
//
// Changes on disk. A body read compares the path's stat with the open
// file's (a rename replaced it, or its size or time changed) at most once
// per Options.Recheck (50 ms by default), and every read checks the bytes it
// read against the CRC. Either finding re-scans the file
// once (re-opening it) and swaps the new catalog in atomically; a read that
// still disagrees fails with ErrChanged. A body that differs from what was
// scanned is never returned. When a re-scan fails because the new file is
// broken, reads keep being served from the old open file as long as its
// bytes still verify (the last good agent keeps serving), and the broken
// file is not re-parsed until it changes again. Only operations that read
// the file check it (Body, IdentityBody, Resolve, SkillMD, SkillMDBySlug,
// Manifest); those answered from the catalog alone (Skill, Skills,
// Snapshot, Command) use the catalog in force and see an edit once a read
// has re-scanned the file.
//
// One version at a time. A server that reloads the file itself, swapping
// whole versions (catalog, index and rendered files together), opens it
// with OpenStable and Options.NoRescan (docs/reload.md): OpenStable waits
// until the file is quiet and scans it again if it changed during the
// scan, so a save in progress is not taken for a version; NoRescan keeps
// the Agent on that one version, so a body that no longer matches it
// fails with ErrStale rather than being answered from a newer scan.
// Version names the version (stat and content SHA-256), so a reload that
// finds the same bytes can be ignored.
//
// Warm starts. With Options.CatalogCache the scanned catalog is kept on
// disk keyed by the file's SHA-256 and the limits, and a settled file is
// stamped with its stat signature so the next open neither scans nor
// hashes it. ReadHead reads just the frontmatter and identity plane (and
// a stamped content hash) for a server's handshake. The skill list and
// Agent Skills slugs are built on first use.
//
// Skill folders. OpenFolders serves Agent Skills folders through the same
// Agent (docs/skill-folders.md §9): package skillsdir scans
// them, and the loader synthesizes a catalog from the scan — the identity
// at z=0, one plane per skill at z=1, 2, … in name order, metadata as
// attributes, links between skills as [[z=N]] — so everything above the
// loader serves both sources alike. Bodies are read from SKILL.md on
// demand and served only from the entry the Agent was built from.
// SkillFiles, ReadSkillFile and Frontmatter give a skill's files
// whatever the source: the rendering for a file, the real files for a
// folder.
//
// It does not parse the format itself (package agentfile), route requests
// (package router) or speak any protocol (package mcp). It does not watch
// the file either (package internal/watch does): without NoRescan, the
// re-scan above happens inside the read that finds the file changed.
package loader
