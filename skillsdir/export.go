package skillsdir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// Export into a skills directory (often a shared one, like
// ~/.claude/skills) must never destroy what it did not write. Each skill
// folder it writes holds exportMarker, naming the agent and the files that
// export wrote; the marker is what allows a later export of the same agent
// to replace or remove them, and what makes an export of any other agent
// refuse the folder (unless forced). Symbolic links below the directory are
// never followed: writing through one would write outside it.

// exportMarker is the marker file's name inside each skill folder.
const exportMarker = MarkerFile

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

// folderPlan is one skill folder an export writes.
type folderPlan struct {
	slug, skill string
	names       []string          // file paths in write order
	files       map[string][]byte // path → content
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
	force := opts != nil && opts.Force
	plans, agent, err := planSkillsDir(ctx, ag)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	// Check every folder before writing any, so a refusal leaves DIR as
	// it was.
	var refusals []string
	for _, p := range plans {
		if err := checkFolder(dir, p, agent, force); err != nil {
			refusals = append(refusals, err.Error())
		}
	}
	if len(refusals) > 0 {
		return nil, fmt.Errorf("export into %s refused; nothing was written:\n  %s", dir, strings.Join(refusals, "\n  "))
	}
	source, _ := filepath.Abs(ag.Path())
	rep := &Report{}
	for _, p := range plans {
		if err := writeFolder(dir, p, Marker{Agent: agent, Source: source, Skill: p.skill}, rep); err != nil {
			return rep, err
		}
	}
	if err := removeGoneFolders(dir, plans, agent, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// planSkillsDir renders every skill's folder: SKILL.md with a pointer to
// the identity reference, its dependency references, and the identity.
func planSkillsDir(ctx context.Context, ag Agent) ([]folderPlan, string, error) {
	_, info := ag.Scanned()
	idBody, err := ag.IdentityBody(ctx)
	if err != nil {
		return nil, "", err
	}
	identity := identityMarkdown(info, idBody)
	m := info
	slugs, _ := AssignSlugs(info.Skills)
	var plans []folderPlan
	for i, s := range info.Skills {
		// By slug: slugs are unique even when (invalid) files repeat a name.
		r, err := ag.SkillMDBySlug(ctx, slugs[i])
		if err != nil {
			return nil, "", err
		}
		p := folderPlan{slug: r.Slug, skill: s.Name, files: map[string][]byte{}}
		add := func(name string, b []byte) {
			p.names = append(p.names, name)
			p.files[name] = b
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

// checkFolder refuses a skill folder that is a symbolic link, holds one on
// a path this export would write, or was not written by an export of
// agent (unless force).
func checkFolder(dir string, p folderPlan, agent string, force bool) error {
	root := filepath.Join(dir, p.slug)
	st, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", root)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", root)
	}
	for _, name := range p.names {
		if err := checkNoLink(root, name); err != nil {
			return err
		}
	}
	m, err := readMarker(root)
	switch {
	case err != nil:
		return err
	case m == nil && !force:
		return fmt.Errorf("%s was not written by 'agent3md export' (no %s); move it away, or pass --force to write into it", root, exportMarker)
	case m != nil && m.Agent != agent && !force:
		return fmt.Errorf("%s holds skill %q of agent %q; pass --force to replace it with agent %q's", root, m.Skill, m.Agent, agent)
	}
	return nil
}

// checkNoLink refuses a path below root whose existing components include
// a symbolic link or something that is not a directory (or, at the end,
// not a regular file).
func checkNoLink(root, rel string) error {
	parts := strings.Split(rel, "/")
	cur := root
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		last := i == len(parts)-1
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", cur)
		case !last && !st.IsDir():
			return fmt.Errorf("%s exists and is not a directory", cur)
		case last && !st.Mode().IsRegular():
			return fmt.Errorf("%s exists and is not a regular file", cur)
		}
	}
	return nil
}

// readMarker reads root's marker; nil when there is none. A marker that is
// not a regular file or does not decode is an error: export will not guess.
func readMarker(root string) (*Marker, error) {
	name := filepath.Join(root, exportMarker)
	st, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return nil, fmt.Errorf("%s is not a marker this program wrote (not a small regular file); remove it", name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s does not decode (%w); remove it, or the folder, by hand", name, err)
	}
	return &m, nil
}

// writeFolder writes one plan, removes the files its previous export of
// the same agent wrote that this one does not, and writes the marker last.
func writeFolder(dir string, p folderPlan, m Marker, rep *Report) error {
	root := filepath.Join(dir, p.slug)
	old, err := readMarker(root)
	if err != nil {
		return err
	}
	if err := mkdirNoFollow(root); err != nil {
		return err
	}
	for _, name := range p.names {
		// Checked again right before writing: the preflight ran before
		// other folders were written.
		if err := checkNoLink(root, name); err != nil {
			return err
		}
		if err := mkdirNoFollow(filepath.Dir(filepath.Join(root, filepath.FromSlash(name)))); err != nil {
			return err
		}
		state, err := writeIfChanged(filepath.Join(root, filepath.FromSlash(name)), p.files[name])
		if err != nil {
			return err
		}
		rel := p.slug + "/" + name
		switch state {
		case "created":
			rep.Created = append(rep.Created, rel)
		case "replaced":
			rep.Replaced = append(rep.Replaced, rel)
		default:
			rep.Unchanged = append(rep.Unchanged, rel)
		}
	}
	if old != nil && old.Agent == m.Agent {
		for _, name := range old.Files {
			if _, keep := p.files[name]; keep {
				continue
			}
			if err := removeOwned(root, name, p.slug, rep); err != nil {
				return err
			}
		}
	}
	m.Files = slices.Sorted(maps.Keys(p.files))
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeIfChanged(filepath.Join(root, exportMarker), append(b, '\n'))
	return err
}

// removeOwned removes one file a marker lists, if it is still a regular
// file inside root (a marker is data on disk: a path that climbs out of
// the folder or meets a link is refused), and the references/ folder it
// leaves empty.
func removeOwned(root, name, slug string, rep *Report) error {
	if !filepath.IsLocal(filepath.FromSlash(name)) || name == exportMarker {
		return fmt.Errorf("%s lists %q, which is not a file inside the folder; fix or remove the marker", filepath.Join(root, exportMarker), name)
	}
	if err := checkNoLink(root, name); err != nil {
		return err
	}
	full := filepath.Join(root, filepath.FromSlash(name))
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rep.Removed = append(rep.Removed, slug+"/"+name)
	if d := path.Dir(name); d != "." {
		os.Remove(filepath.Join(root, filepath.FromSlash(d))) // only succeeds when empty
	}
	return nil
}

// removeGoneFolders removes the folders of skills an earlier export of the
// same agent wrote and this agent no longer has: the files its marker
// lists, the marker, and the folder when that leaves it empty.
func removeGoneFolders(dir string, plans []folderPlan, agent string, rep *Report) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	current := make(map[string]bool, len(plans))
	for _, p := range plans {
		current[p.slug] = true
	}
	for _, e := range entries {
		// ReadDir does not follow links: a linked folder is never entered.
		if !e.IsDir() || current[e.Name()] {
			continue
		}
		root := filepath.Join(dir, e.Name())
		m, err := readMarker(root)
		if err != nil || m == nil || m.Agent != agent {
			continue // not ours to touch
		}
		for _, name := range m.Files {
			if err := removeOwned(root, name, e.Name(), rep); err != nil {
				return err
			}
		}
		if err := os.Remove(filepath.Join(root, exportMarker)); err != nil {
			return err
		}
		os.Remove(root) // only succeeds when empty
	}
	return nil
}

// mkdirNoFollow creates dir (and its parents) as real directories, refusing
// a symbolic link on the way.
func mkdirNoFollow(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; export never writes through one", dir)
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s exists and is not a directory", dir)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := mkdirNoFollow(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// writeIfChanged writes b to name unless it already holds exactly b, and
// says which: "created", "replaced" or "unchanged".
func writeIfChanged(name string, b []byte) (string, error) {
	old, err := os.ReadFile(name)
	switch {
	case err == nil && bytes.Equal(old, b):
		return "unchanged", nil
	case err == nil:
		return "replaced", writeFile(name, b)
	case errors.Is(err, fs.ErrNotExist):
		return "created", writeFile(name, b)
	default:
		return "", err
	}
}

// writeFile writes b atomically: a temporary file in the same directory,
// renamed over name (a rename replaces a link rather than following it).
func writeFile(name string, b []byte) error {
	tmp, err := writeTemp(filepath.Dir(name), ".tmp-*", b)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	return os.Rename(tmp, name)
}

// writeTemp writes b to a new file in dir (named after pattern, as
// os.CreateTemp does), readable by all (0644), and returns its name; the
// caller moves it into place or removes it. On error nothing is left.
func writeTemp(dir, pattern string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
