package skillsdir

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// Export writes an agent file's skills as Agent Skills folders, by the
// rules of WriteFolders (write.go): a marker per folder, no folder another
// agent wrote unless forced, never through a symbolic link, each folder
// replaced whole.

// MarkerFile is the name of the marker file an export writes into each
// skill folder (Marker).
const MarkerFile = ".agent3md-export.json"

// identityFile is the reference that carries the agent's identity in every
// skill folder. Upper case: it can never collide with a dependency's
// reference file, whose slug is lower case.
const identityFile = "references/AGENT.md"

// Marker is the content of a skill folder's marker file: which agent wrote
// the folder, from which file, and the files it wrote there.
type Marker struct {
	Agent  string   `json:"agent"`
	Source string   `json:"source"` // the agent file, as an absolute path
	Skill  string   `json:"skill"`
	Files  []string `json:"files"` // slash paths inside the folder, sorted
}

// Report lists what a write into a skills directory did, as slash paths
// relative to the directory: each file created, replaced, left as it was
// (its bytes already right) and removed.
type Report struct {
	Created, Replaced, Unchanged, Removed []string
}

// Agent is the open agent Export writes out; *loader.Agent satisfies it.
type Agent interface {
	// Path is the agent file's path, which the markers name.
	Path() string
	// Scanned is the agent file's catalog and its agent3md/1 reading.
	Scanned() (*agentfile.Catalog, *agentfile.Agent)
	// IdentityBody is the identity plane's body.
	IdentityBody(ctx context.Context) (string, error)
	// SkillMDBySlug is the skill's rendering (Doc.Render).
	SkillMDBySlug(ctx context.Context, slug string) (*Rendered, error)
}

// ExportOptions configures Export.
type ExportOptions struct {
	// Force writes into skill folders without a marker, or with another
	// agent's.
	Force bool
}

// Export writes one Agent Skills folder per skill of ag under dir
// (docs/cli.md, export): SKILL.md, a references/<dep>.md per other skill
// of its resolve chain, references/AGENT.md with the agent's identity, and
// the marker. dir is created when missing. A folder this agent's export
// did not write (no marker, or another agent's) is refused unless
// opts.Force, a symbolic link below dir always; all folders are checked
// before any is written, so a refusal leaves dir as it was. Files the
// previous export of the same agent wrote and this one does not, and the
// folders of skills the agent no longer has, are removed; nothing else is.
func Export(ctx context.Context, ag Agent, dir string, opts *ExportOptions) (*Report, error) {
	folders, agent, err := planSkillsDir(ctx, ag)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	source, _ := filepath.Abs(ag.Path())
	return WriteFolders(dir, folders, &WriteOptions{Agent: agent, Source: source, Force: opts != nil && opts.Force, Prune: true})
}

// planSkillsDir renders every skill's folder: SKILL.md with a pointer to
// the identity reference, its dependency references, and the identity.
func planSkillsDir(ctx context.Context, ag Agent) ([]Folder, string, error) {
	_, info := ag.Scanned()
	idBody, err := ag.IdentityBody(ctx)
	if err != nil {
		return nil, "", err
	}
	identity := identityMarkdown(info, idBody)
	m := info
	slugs, _ := AssignSlugs(info.Skills)
	var plans []Folder
	for i, s := range info.Skills {
		// By slug: slugs are unique even when (invalid) files repeat a name.
		r, err := ag.SkillMDBySlug(ctx, slugs[i])
		if err != nil {
			return nil, "", err
		}
		p := Folder{Name: r.Slug, Skill: s.Name}
		add := func(name string, b []byte) {
			p.Files = append(p.Files, FolderFile{Path: name, Data: b})
		}
		text := slices.Clone(r.Text)
		text = fmt.Appendf(text, "\nThis skill belongs to the agent %s: read its identity and rules in [AGENT.md](%s) before acting.\n", m.Name, identityFile)
		add("SKILL.md", text)
		for _, ref := range r.References {
			add(ref.Path, ref.Text)
		}
		add(identityFile, identity)
		plans = append(plans, p)
	}
	return plans, m.Name, nil
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
