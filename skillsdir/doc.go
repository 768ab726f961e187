// Package skillsdir converts between agent files and Agent Skills folders,
// both ways: directories holding one folder per skill, each with a
// SKILL.md (YAML frontmatter, then Markdown) and optional references/,
// scripts/ and assets/ (docs/skill-folders.md).
//
// Reading. Scan walks the roots in parallel with a bounded number of
// workers. The Catalog keeps, per skill, only the parsed frontmatter (as
// JSON values, what a host's YAML parser yields), the routing fields read
// from it, the names of the skills its body links to, and its file list
// with sizes and a stat signature (size, times, device, inode). Bodies and
// files are read on demand by ReadFile; SHA-256 digests are computed on
// first need and cached per file signature. Nested skills: a folder inside
// a skill that holds its own SKILL.md is a skill of its own (within
// MaxDepth of its root), and its files are also files of the enclosing
// skill, as the skills extension wants (docs/skill-folders.md §1).
//
// Findings. Each problem found is a Finding with a rule, and each rule has
// one severity, set in one table (Rules, SeverityOf) that every command
// reads through the findings: an error breaks the skill, so the catalog
// leaves it out (Catalog.Broken) and validate, import, mcp and serve all
// treat it as broken; a warning is served, imported and reported
// (docs/skill-folders.md §3). Check groups a root's findings by skill
// folder, as validate reports them (FolderReport.FileReport gives
// agentfile's per-file report, the shape validate prints for agent files
// too).
//
// Rendering. Doc.Render writes a skill of an agent file as an Agent Skills
// SKILL.md with one references/<dep>.md per other skill of its resolve
// chain (docs/format.md §15); AssignSlugs gives every skill its Agent
// Skills name.
//
// Import writes one agent file from folders; ExportFolders renders an
// agent's skills as folders, which package folderwrite's WriteFolders
// writes into a skills directory (docs/skill-folders.md §11, docs/cli.md):
// the marker per folder, the ownership rules and the race-safe writing
// are folderwrite's. Converting back and forth loses nothing either side
// can hold (docs/skill-folders.md §12).
//
// Layering. The package sits below loader and above agentfile and
// skillsdir/folderwrite (the writer, which imports nothing of it). The loader
// needs the reader (to serve folders) and the renderer (to serve an agent
// file's skills as SKILL.md); export reads an open agent only through the
// small Agent interface, which *loader.Agent satisfies; import needs only
// agentfile's parser and validator. cmd, loader and mcp (through loader)
// call it; it imports nothing of theirs.
//
// Everything under the roots is someone else's input. Frontmatter YAML is
// parsed by a real YAML library with bounded size and no anchors, aliases
// or tags; a client's path is refused when absolute, holding "..", a
// backslash or NUL, or not in the skill's list; a read resolves the path
// beneath the skill folder it has opened (os.Root), so no symlink, even
// one swapped in after the scan, leads it outside; only regular files up
// to MaxFileBytes are opened, and never a FIFO or device. A file whose
// signature changed since the scan re-scans its skill, and no read
// returns bytes that disagree with the entry it returns them with.
// Nothing found is ever executed.
//
// It does not watch the folders, serve any protocol or route requests.
package skillsdir
