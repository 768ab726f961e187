package skillsdir

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// Export writes an agent file's skills as Agent Skills folders, by the
// rules of WriteFolders (write.go): a marker per folder, no folder another
// agent wrote unless forced, never through a symbolic link, each folder
// replaced whole.

// markerFile is the name of the marker file written into each skill
// folder (marker).
const markerFile = ".agent3md-export.json"

// identityFile is the reference that carries the agent's identity in every
// skill folder. Upper case: it can never collide with a dependency's
// reference file, whose slug is lower case.
const identityFile = "references/AGENT.md"

// marker is the content of a skill folder's marker file: which agent wrote
// the folder, from which file, and the files it wrote there.
type marker struct {
	Agent  string   `json:"agent"`
	Source string   `json:"source"` // the agent file, as an absolute path
	Skill  string   `json:"skill"`
	Files  []string `json:"files"` // slash paths inside the folder, sorted
	// Origin owns the folder instead of Agent when set: the source a
	// sync copied it from (WriteOptions.Origin); URI is where its
	// SKILL.md came from. Digests is the SHA-256 of each file written
	// (every writer's; markers from before they were recorded lack it).
	Origin  string            `json:"origin,omitempty"`
	URI     string            `json:"uri,omitempty"`
	Digests map[string]string `json:"digests,omitempty"`
	// Head is what the folder's AGENT.md cannot say exactly, for import
	// (docs/skill-folders.md §11).
	Head *agentHead `json:"head,omitempty"`
}

// agentHead is an agent file's frontmatter and identity plane as export
// read them, so that import gives them back key for key.
type agentHead struct {
	// Frontmatter holds every key and value, in file order.
	Frontmatter [][2]string `json:"frontmatter"`
	// IdentityZ is the identity plane's z as written ("" when there is
	// none); IdentityLabel its label, nil when it has none.
	IdentityZ     string  `json:"identityZ,omitempty"`
	IdentityLabel *string `json:"identityLabel,omitempty"`
}

// Report lists what a write into a skills directory did, as slash paths
// relative to the directory: each file created, replaced, left as it was
// (its bytes already right) and removed. RecoverStaged also lists the
// entries it moved back into their folders (Restored), the hidden
// folders it had to leave (Left, as full paths) and those named like a
// leftover of a folder no write makes, which it never touches (Skipped,
// as full paths).
type Report struct {
	Created, Replaced, Unchanged, Removed []string
	Restored, Left, Skipped               []string
}

// WriteText lists the files the write created, replaced and removed, a
// line each ("created  pdf/SKILL.md"); unchanged ones are only counted,
// by Summary.
func (r *Report) WriteText(w io.Writer) error {
	for _, group := range []struct {
		verb  string
		paths []string
	}{{"restored", r.Restored}, {"created", r.Created}, {"replaced", r.Replaced}, {"removed", r.Removed}} {
		for _, p := range group.paths {
			if _, err := fmt.Fprintf(w, "%-8s %s\n", group.verb, p); err != nil {
				return err
			}
		}
	}
	for _, d := range r.Left {
		if _, err := fmt.Fprintf(w, "left     %s: %s\n", d, LeftAdvice); err != nil {
			return err
		}
	}
	for _, d := range r.Skipped {
		if _, err := fmt.Fprintf(w, "skipped  %s: %s\n", d, SkippedAdvice); err != nil {
			return err
		}
	}
	return nil
}

// SkippedAdvice is what to do with a hidden folder named like a killed
// write's leftover whose name decodes to no skill folder's name.
const SkippedAdvice = "named like a killed write's hidden folder, but for no valid skill name, so no write of agent3md made it; it is left as it is; look inside, then remove it"

// LeftAdvice is what to do with a hidden folder RecoverStaged had to
// leave.
const LeftAdvice = "a killed write's hidden folder, holding files its folder has again; keep what you need from it, then remove it"

// Summary is the line that ends an export of skills folders into dir.
func (r *Report) Summary(skills int, dir string) string {
	return fmt.Sprintf("%d skills under %s: %d files created, %d replaced, %d unchanged, %d removed",
		skills, dir, len(r.Created), len(r.Replaced), len(r.Unchanged), len(r.Removed))
}

// Agent is the open agent Export writes out; *loader.Agent satisfies it.
type Agent interface {
	// Path is the agent file's path, which the markers name.
	Path() string
	// Scanned is the agent file's catalog and its agent3md/1 reading.
	Scanned() (*agentfile.Catalog, *agentfile.Agent)
	// SkillMDBySlug is the skill's folder as Doc.RenderFolder renders it.
	SkillMDBySlug(ctx context.Context, slug string) (*Rendered, error)
}

// ExportFolders renders each skill of ag as the Agent Skills folder export
// writes (docs/cli.md, export): SKILL.md, a references/<dep>.md per other
// skill of its resolve chain and references/AGENT.md with the agent's
// identity; and the WriteOptions that write them, naming the agent and
// its file (set Force to write over other folders). WriteFolders writes
// them; Prune is set, so the folders of skills the agent no longer has go.
func ExportFolders(ctx context.Context, ag Agent) ([]Folder, WriteOptions, error) {
	folders, agent, err := planSkillsDir(ctx, ag)
	if err != nil {
		return nil, WriteOptions{}, err
	}
	source, err := filepath.Abs(ag.Path())
	if err != nil {
		return nil, WriteOptions{}, err
	}
	cat, info := ag.Scanned()
	return folders, WriteOptions{Agent: agent, Source: source, Prune: true, head: headOf(cat, info)}, nil
}

// headOf is the agent file's frontmatter, in file order ("3md" first, the
// other keys by line; "axis" when it is not the default), and its
// identity plane.
func headOf(cat *agentfile.Catalog, info *agentfile.Agent) *agentHead {
	h := &agentHead{Frontmatter: [][2]string{{"3md", cat.Version}}}
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
func planSkillsDir(ctx context.Context, ag Agent) ([]Folder, string, error) {
	_, info := ag.Scanned()
	slugs, _ := AssignSlugs(info.Skills)
	var plans []Folder
	for i, s := range info.Skills {
		// By slug: slugs are unique even when (invalid) files repeat a name.
		r, err := ag.SkillMDBySlug(ctx, slugs[i])
		if err != nil {
			return nil, "", err
		}
		p := Folder{Name: r.Slug, Skill: s.Name}
		p.Files = append(p.Files, FolderFile{Path: "SKILL.md", Data: r.Text})
		for _, ref := range r.References {
			p.Files = append(p.Files, FolderFile{Path: ref.Path, Data: ref.Text})
		}
		plans = append(plans, p)
	}
	return plans, info.Name, nil
}

// identityMarkdown is the agent's identity as a reference file.
func identityMarkdown(m *agentfile.Agent, identity string) []byte {
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
