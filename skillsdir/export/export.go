package export

import (
	"bytes"
	"context"
	"fmt"

	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// Export writes an agent file's skills as Agent Skills folders, by the
// rules of folderwrite.WriteFolders: a marker per folder, no folder another
// agent wrote unless forced, never through a symbolic link, each folder
// replaced whole.

// IdentityFile is the reference that carries the agent's identity in every
// skill folder. Upper case: it can never collide with a dependency's
// reference file, whose slug is lower case.
const IdentityFile = "references/AGENT.md"

// Source is what export reads of an open agent: its path, its scan
// and each skill's rendered folder; *loader.Agent satisfies it.
type Source interface {
	// Path is the agent file's path, which the markers name.
	Path() string
	// Scanned is the agent file's catalog and its agent3md/1 reading.
	Scanned() (*agentfile.Catalog, *agentfile.AgentInfo)
	// SkillMDBySlug is the skill's folder as Doc.RenderFolder renders it.
	SkillMDBySlug(ctx context.Context, slug string) (*Rendered, error)
}

// Folders renders each skill of ag as the Agent Skills folder export
// writes (docs/cli.md, export): SKILL.md, a references/<dep>.md per other
// skill of its resolve chain and references/AGENT.md with the agent's
// identity; and the WriteOptions that write them, naming the agent and
// its file (set Force to write over other folders). WriteFolders writes
// them; Prune is set, so the folders of skills the agent no longer has go.
func Folders(ctx context.Context, ag Source) ([]folderwrite.Folder, folderwrite.WriteOptions, error) {
	folders, agent, err := planSkillsDir(ctx, ag)
	if err != nil {
		return nil, folderwrite.WriteOptions{}, err
	}
	source, err := filepath.Abs(ag.Path())
	if err != nil {
		return nil, folderwrite.WriteOptions{}, err
	}
	cat, info := ag.Scanned()
	return folders, folderwrite.WriteOptions{Agent: agent, Source: source, Prune: true, Head: headOf(cat, info)}, nil
}

// headOf is the agent file's frontmatter, in file order ("3md" first, the
// other keys by line; "axis" when it is not the default), and its
// identity plane.
func headOf(cat *agentfile.Catalog, info *agentfile.AgentInfo) *folderwrite.AgentHead {
	h := &folderwrite.AgentHead{Frontmatter: [][2]string{{"3md", cat.Version}}}
	type kv struct {
		line int
		k, v string
	}
	var rest []kv
	if cat.HasTitle {
		rest = append(rest, kv{cat.TitleLine, "title", cat.Title})
	}
	for k, v := range cat.Metadata {
		rest = append(rest, kv{cat.MetadataLines[k], k, v})
	}
	slices.SortFunc(rest, func(a, b kv) int { return a.line - b.line })
	for _, e := range rest {
		h.Frontmatter = append(h.Frontmatter, [2]string{e.k, e.v})
	}
	if cat.Axis != "layer" {
		h.Frontmatter = append(h.Frontmatter, [2]string{"axis", cat.Axis})
	}
	if info.Identity >= 0 {
		pl := &cat.Planes[info.Identity]
		h.IdentityZ = pl.ZText
		if pl.HasLabel {
			h.IdentityLabel = &pl.Label
		}
	}
	return h
}

// planSkillsDir lists every skill's folder as the loader renders it
// (Doc.RenderFolder): SKILL.md pointing at the identity reference, its
// dependency references and references/AGENT.md.
func planSkillsDir(ctx context.Context, ag Source) ([]folderwrite.Folder, string, error) {
	_, info := ag.Scanned()
	slugs, _ := AssignSlugs(info.Skills)
	var plans []folderwrite.Folder
	for i, s := range info.Skills {
		// By slug: slugs are unique even when (invalid) files repeat a name.
		r, err := ag.SkillMDBySlug(ctx, slugs[i])
		if err != nil {
			return nil, "", err
		}
		p := folderwrite.Folder{Name: r.Slug, Skill: s.Name}
		p.Files = append(p.Files, folderwrite.FolderFile{Path: "SKILL.md", Data: r.Text})
		for _, ref := range r.References {
			p.Files = append(p.Files, folderwrite.FolderFile{Path: ref.Path, Data: ref.Text})
		}
		plans = append(plans, p)
	}
	return plans, info.Name, nil
}

// identityMarkdown is the agent's identity as a reference file.
func identityMarkdown(m *agentfile.AgentInfo, identity string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", m.Name)
	fmt.Fprintf(&b, "- model: %s\n", m.Model)
	if m.Persona != "" {
		fmt.Fprintf(&b, "- persona: %s\n", m.Persona)
	}
	if len(m.Tools) > 0 {
		fmt.Fprintf(&b, "- tools: %s\n", strings.Join(m.Tools, ", "))
	}
	if identity != "" {
		fmt.Fprintf(&b, "\n%s\n", identity)
	}
	return b.Bytes()
}
