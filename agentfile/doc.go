// Package agentfile reads agent3md/1 files: a bounded, single-pass streaming
// scanner that turns the bytes of a 3md document into a body-less Catalog,
// the agent3md/1 reading of that catalog (identity, skills, inputs,
// dependency links), the agent3md/1 validator and its per-file report as
// `agent3md validate` prints it (FileReport), and the starter agent a new
// user begins from (Starter, what `agent3md new` writes).
//
// It owns the format: line handling, frontmatter, @plane directives, numbers,
// links, descriptions, limits and the canonical error names. It does not own
// reading bodies back from a file (package loader), routing (package router)
// or anything on the wire (package mcp).
//
// The scanner never holds a whole plane body: each plane keeps only the byte
// span of its body in the file, a CRC-32C of the normalised body, its links
// and a short description taken from a bounded prefix. Every bound lives in
// Limits, with a default and a CLI flag.
package agentfile
