// Package skillmd is the grammar of a SKILL.md head, in one place for
// every package that reads or writes one (docs/skill-folders.md §2, §3):
// where the YAML frontmatter starts and ends, how it is read (a real YAML
// library, bounded in size and depth, no anchors, aliases, merge keys or
// tags, values as JSON carries them), which plain scalars YAML 1.1 and
// 1.2 read differently, how the triggers list splits, and the Agent
// Skills bound on a description.
//
// Parse returns the frontmatter with the YAML tree kept for the line of
// each key, or a Problem naming its rule and SKILL.md line;
// ParseFrontmatter gives only the JSON values, with the default bound.
//
// Layering: it imports no package of this module. The folder reader
// (skillsdir) validates what Parse returns and gives each Problem's rule
// its severity; the renderer (skillsdir/render) quotes by YAML11Bool and
// splits triggers as the reader does; sync (skillsync) checks a
// downloaded SKILL.md with ParseFrontmatter. It does not validate the
// Agent Skills fields, walk folders, render or write anything.
package skillmd
