// Package export renders an agent file's skills in Agent Skills form
// (docs/format.md §15, docs/skill-folders.md §11): the SKILL.md the
// loader serves for each skill and the folders `agent3md export
// --skills-dir` writes.
//
// Doc.Render (render.go) writes a skill as SKILL.md, with one
// references/<dep>.md per other skill of its resolve chain; its
// frontmatter is built in renderfm.go and written as YAML in yaml.go, and
// links between skills are rewritten by rewrite.go. Doc.RenderFolder
// (renderfolder.go) adds references/AGENT.md, the agent's identity.
// AssignSlugs (slug.go) gives every skill its Agent Skills name.
// PlainLinks reads a description as prose. Folders (export.go) renders
// every skill of an open agent as the folder set, with the WriteOptions
// that name the agent; package folderwrite's WriteFolders writes them.
//
// What the import direction relies on lives here too, so both directions
// read one definition: FormatInputs (inputs as metadata and plane
// attributes carry them), SkillFrontmatterAttr (the plane attribute that
// keeps the frontmatter the other attributes do not say), IdentityFile,
// and the description paragraph import puts in front of a body, which
// RemoveDescription takes out again (description.go). Converting back
// and forth loses nothing either side can hold (docs/skill-folders.md
// §12).
//
// Layering. It imports agentfile, skillsdir/skillmd (the description
// bound, YAML 1.1 booleans, the triggers list) and skillsdir/folderwrite
// (the Folder type it returns), nothing that reads folders. It reads an
// open agent only through the small Agent interface, which
// *loader.Agent satisfies, so it sits below the loader, which imports it
// to serve SKILL.md. It does not read or validate skill folders
// (skillsdir), import them (skillsdir/importer) or write anything to disk
// (skillsdir/folderwrite).
package export
