// Package skillsdir scans Agent Skills folders — directories holding one
// folder per skill, each with a SKILL.md (YAML frontmatter, then Markdown)
// and optional references/, scripts/ and assets/ — into a catalog a server
// can route and serve from (docs/skill-folders.md).
//
// Scan walks the roots in parallel with a bounded number of workers. The
// Catalog keeps, per skill, only the parsed frontmatter (as JSON values,
// what a host's YAML parser yields), the routing fields read from it, the
// names of the skills its body links to, and its file list with sizes and
// a stat signature (size, times, device, inode). Bodies and files are read
// on demand by ReadFile; SHA-256 digests are computed on first need and
// cached per file signature.
//
// Everything under the roots is someone else's input. Frontmatter YAML is
// parsed by a real YAML library with bounded size and no anchors or
// aliases; a client's path is refused when absolute, holding "..", a
// backslash or NUL, or not in the skill's list; a read resolves the path
// beneath the skill folder it has opened (os.Root), so no symlink, even
// one swapped in after the scan, leads it outside; only regular files up
// to MaxFileBytes are opened, and never a FIFO or device. A file whose
// signature changed since the scan re-scans its skill, and no read
// returns bytes that disagree with the entry it returns them with.
// Nothing found is ever executed.
//
// Nested skills: a folder inside a skill that holds its own SKILL.md is a
// skill of its own (within MaxDepth of its root), and its files are also
// files of the enclosing skill, as the skills extension wants
// (docs/skill-folders.md §1).
//
// It does not watch the folders, serve any protocol, route requests or
// render 3md; package loader wraps it so an agent can be served from a
// folder as from an agent.3md file.
package skillsdir
