// Package skillsdir reads and validates Agent Skills folders: directories
// holding one folder per skill, each with a SKILL.md (YAML frontmatter,
// then Markdown) and optional references/, scripts/ and assets/
// (docs/skill-folders.md).
//
// Reading. Scan walks the roots in parallel with a bounded number of
// workers (scan.go, files.go, pool.go). The Catalog (catalog.go) keeps,
// per skill, only the parsed frontmatter (as JSON values, what a host's
// YAML parser yields), the routing fields read from it, the names of the
// skills its body links to (links.go), and its file list with sizes and a
// stat signature (size, times, device, inode; sig_*.go). Bodies and files
// are read on demand by ReadFile (read.go, open.go); SHA-256 digests are
// computed on first need and cached per file signature. A file whose
// signature changed since the scan re-scans its skill (rescan.go).
// Nested skills: a folder inside a skill that holds its own SKILL.md is a
// skill of its own (within MaxDepth of its root), and its files are also
// files of the enclosing skill, as the skills extension wants
// (docs/skill-folders.md §1).
//
// Findings. Each problem found is a Finding with a rule, and each rule has
// one severity, set in one table (findings.go: Rules, SeverityOf) that
// every command reads through the findings: an error breaks the skill, so
// the catalog leaves it out (Catalog.Broken) and validate, import, mcp and
// serve all treat it as broken; a warning is served, imported and
// reported (docs/skill-folders.md §3). validate.go applies the Agent
// Skills rules to a parsed frontmatter. Check (check.go) groups a root's
// findings by skill folder, as validate reports them
// (FolderReport.FileReport gives agentfile's per-file report, the shape
// validate prints for agent files too).
//
// Everything under the roots is someone else's input. Frontmatter YAML is
// parsed by skillmd (bounded size, no anchors, aliases or tags); a
// client's path is refused when absolute, holding "..", a backslash or
// NUL, or not in the skill's list; a read resolves the path beneath the
// skill folder it has opened (os.Root), so no symlink, even one swapped
// in after the scan, leads it outside; only regular files up to
// MaxFileBytes are opened, and never a FIFO or device. No read returns
// bytes that disagree with the entry it returns them with. Nothing found
// is ever executed.
//
// Layering. It imports agentfile (inputs, the per-file report),
// skillsdir/skillmd (the SKILL.md head's grammar) and
// skillsdir/folderwrite (only ValidName, the folder name rule). The
// loader imports it to serve folders; skillsdir/importer imports it to
// read the folders it makes an agent file of; cmd imports it for
// validate. It does not render SKILL.md or export (skillsdir/export),
// import (skillsdir/importer), write folders (skillsdir/folderwrite),
// watch the folders, serve any protocol or route requests.
package skillsdir
