package loader

import "github.com/agent3md/agent3md/agentfile"

// Snapshot is one scan of the agent file, read in place. Skills copies the
// whole body-less catalog per call (16 MB at 100,000 skills); a server that
// pages through a large catalog, or filters it, reads a Snapshot instead and
// builds entries only for the skills it shows. Every method reads the same
// scan, so a page never mixes two versions of the file. The zero Snapshot
// has no skills.
type Snapshot struct{ st *state }

// Snapshot returns the scan in force.
func (a *Agent) Snapshot() Snapshot { return Snapshot{a.current()} }

// Len is the number of skills.
func (s Snapshot) Len() int {
	if s.st == nil {
		return 0
	}
	return len(s.st.info.Skills)
}

// Catalog is the scanned catalog; it must not be modified.
func (s Snapshot) Catalog() *agentfile.Catalog {
	if s.st == nil {
		return nil
	}
	return s.st.cat
}

// Skill returns skill i (0 <= i < Len, source order); it must not be
// modified.
func (s Snapshot) Skill(i int) *agentfile.Skill { return &s.st.info.Skills[i] }

// Plane returns skill i's plane; it must not be modified.
func (s Snapshot) Plane(i int) *agentfile.Plane {
	return &s.st.cat.Planes[s.st.info.Skills[i].Plane]
}

// DepNames returns the names of the skills skill i links to, in body order,
// each once, leaving out links to no skill: SkillInfo.Deps.
func (s Snapshot) DepNames(i int) []string {
	deps := make([]string, 0, len(s.st.deps[i]))
	for _, j := range unique(s.st.deps[i]) {
		deps = append(deps, s.st.names[j])
	}
	return deps
}

// Slug returns skill i's Agent Skills name (SkillInfo.Slug).
func (s Snapshot) Slug(i int) string { return s.st.slugList()[i] }

// SlugIndex returns the index of the skill whose Agent Skills name is slug.
func (s Snapshot) SlugIndex(slug string) (int, bool) {
	if s.st == nil {
		return 0, false
	}
	i, ok := s.st.slugIndex()[slug]
	return i, ok
}

// Frontmatter returns skill i's SKILL.md frontmatter as a YAML parser
// yields it (Rendered.Frontmatter) without reading any body.
// For skill folders it is the SKILL.md's own frontmatter, shared: it must
// not be modified.
func (s Snapshot) Frontmatter(i int) map[string]any {
	if s.st.folder != nil {
		return s.st.folder.skills[i].Frontmatter
	}
	return s.st.doc().Frontmatter(i)
}

// Description returns skill i's SKILL.md description.
func (s Snapshot) Description(i int) string {
	if s.st.folder != nil {
		return s.st.folder.skills[i].Description
	}
	return s.st.doc().Description(i)
}
