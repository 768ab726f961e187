// Package importer writes one agent file from Agent Skills folders
// (docs/skill-folders.md §11, docs/cli.md import): each served skill
// becomes a plane whose attributes carry its frontmatter, its body
// (links between skills made [[z=N]] links, directives neutralized) and
// its file list; the agent's identity comes from an AGENT.md beside the
// folders, or from the marker and references/AGENT.md an export left.
//
// Import (import.go) scans the roots with the folder reader and returns
// the agent file's bytes, checked by agentfile's parser and validator
// with the caller's limits, and what it did (Imported). importattrs.go
// maps frontmatter to plane attributes, importid.go reads and writes the
// identity plane, importmd.go rewrites bodies and quotes values.
// Imported.WriteFile (writefile.go) writes the result without replacing
// a file unless forced.
//
// Layering. It imports the folder reader (skillsdir), the renderer
// (skillsdir/export: slugs, plain links, the description paragraph and
// the other shared formats), skillsdir/skillmd, skillsdir/folderwrite
// (the export marker's agent head) and agentfile; only cmd imports it.
// It does not serve, render SKILL.md or write skill folders.
package importer
