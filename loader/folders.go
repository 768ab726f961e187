package loader

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// FolderOptions configures OpenFolders. A nil *FolderOptions, or a zero
// field, means the default.
type FolderOptions struct {
	// MaxDepth, MaxFileBytes, MaxSkills and Workers bound the scan
	// (docs/skill-folders.md §7; defaults 4 levels, 1 MiB, 100,000
	// skills, GOMAXPROCS workers).
	MaxDepth     int
	MaxFileBytes int64
	MaxSkills    int
	Workers      int
	// NoRescan pins the Agent to the scan it made, as Options.NoRescan
	// does for a file: a read that finds a skill changed on disk fails
	// with an error wrapping ErrStale instead of re-scanning the folders.
	// A server that reloads whole versions sets it.
	NoRescan bool
}

// AgentFileName is the optional file at the first root whose Markdown
// becomes the identity of an agent served from skill folders
// (docs/skill-folders.md §9).
const AgentFileName = "AGENT.md"

// folderState is the part of a state that comes from skill folders: the
// scanned catalog and, per skill of info.Skills, the entry it was built
// from. Bodies are read through the catalog and served only when they
// come from that very entry.
type folderState struct {
	roots    []string
	cat      *skillsdir.Catalog
	skills   []*skillsdir.Skill // parallel to info.Skills
	identity string             // the identity body (AGENT.md or generated)
	// idPath is the AGENT.md read, "" when the identity was generated.
	idPath string
}

// folderConfig is what a folder Agent re-scans with.
type folderConfig struct {
	roots []string
	scan  skillsdir.Options
}

// OpenFolders scans Agent Skills folders (docs/skill-folders.md) and
// returns an Agent over them with the same API as one opened from an
// agent.3md file: each skill is a skill of the agent, in name order at
// z = 1, 2, …; triggers, inputs and tool come from the frontmatter's
// metadata; dependencies are the relative links between served skills;
// the identity is the AGENT.md at the first root, else a short text
// naming the folders. Roots may be several: skill names must be unique
// across them, and a clash fails with both paths (it wraps
// skillsdir.ErrNameClash). A broken skill is left out; Findings says
// why. Catalog().SHA256 fingerprints every served name, frontmatter and
// file signature, so it changes whenever a served byte may have.
func OpenFolders(ctx context.Context, roots []string, opts *FolderOptions) (*Agent, error) {
	if len(roots) == 0 {
		return nil, errors.New("open skill folders: no folder given; pass at least one folder of skill folders")
	}
	var fo FolderOptions
	if opts != nil {
		fo = *opts
	}
	abs, err := absRoots(roots)
	if err != nil {
		return nil, err
	}
	cfg := &folderConfig{roots: abs, scan: skillsdir.Options{
		MaxDepth: fo.MaxDepth, MaxFileBytes: fo.MaxFileBytes, MaxSkills: fo.MaxSkills, Workers: fo.Workers,
	}}
	st, err := scanFolders(ctx, cfg, 1)
	if err != nil {
		return nil, err
	}
	a := &Agent{path: abs[0], start: time.Now(), st: st, folders: cfg}
	a.opts.NoRescan = fo.NoRescan
	a.opts.Recheck = DefaultRecheck
	return a, nil
}

// FolderHead is ReadHead for skill folders: the agent's name and identity
// exactly as OpenFolders with the same roots and options will give them,
// read from the first root's AGENT.md (or generated) without scanning, so
// a server answers the handshake while the folders are scanned.
func FolderHead(roots []string, opts *FolderOptions) (*Head, error) {
	if len(roots) == 0 {
		return nil, errors.New("skill folders: no folder given; pass at least one folder of skill folders")
	}
	abs, err := absRoots(roots)
	if err != nil {
		return nil, err
	}
	maxID := int64(skillsdir.DefaultMaxFileBytes)
	if opts != nil && opts.MaxFileBytes > 0 {
		maxID = opts.MaxFileBytes
	}
	name, identity, _, err := readIdentity(abs, maxID)
	if err != nil {
		return nil, err
	}
	return &Head{Name: name, Identity: identity, IdentityKnown: true}, nil
}

// absRoots makes each root absolute, so OpenFolders and FolderHead name
// the same folders, and the agent's identity, whatever the working
// directory later becomes.
func absRoots(roots []string) ([]string, error) {
	abs := make([]string, len(roots))
	for i, r := range roots {
		p, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("skills folder %s: %w", r, err)
		}
		abs[i] = p
	}
	return abs, nil
}

// Folders returns the roots of an Agent opened by OpenFolders (absolute
// paths), nil for one opened from an agent file.
func (a *Agent) Folders() []string {
	if a.folders == nil {
		return nil
	}
	return slices.Clone(a.folders.roots)
}

// FolderSkill returns, for an Agent served from skill folders, the scanned
// skill named name (its SKILL.md, and the lines of its description and
// triggers, which validate's lints point at); nil for an agent file or a
// name the agent does not hold.
func (a *Agent) FolderSkill(name string) *skillsdir.Skill {
	st := a.current()
	if st.folder == nil {
		return nil
	}
	i, ok := st.find(name)
	if !ok || i >= len(st.folder.skills) {
		return nil
	}
	return st.folder.skills[i]
}

// Findings returns, for an Agent served from skill folders, the scan's
// findings as "path:line: severity: message [rule]" lines: the skills
// left out and why (each error: its rule's severity decides it,
// docs/skill-folders.md §3), and the served skills' warnings. Nil for an
// agent file.
func (a *Agent) Findings() []string {
	st := a.current()
	if st.folder == nil {
		return nil
	}
	fs := st.folder.cat.Findings()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
		if f.Breaks() {
			out[i] += " (left out until this is fixed)"
		}
	}
	return out
}

// scanFolders scans the roots and synthesizes the catalog the rest of the
// loader (and the router, and the server) reads.
func scanFolders(ctx context.Context, cfg *folderConfig, gen uint64) (*state, error) {
	sc, err := skillsdir.Scan(ctx, cfg.roots, &cfg.scan)
	if err != nil {
		// A *skillsdir.ClashError names both SKILL.md files and the fix.
		return nil, fmt.Errorf("open skill folders: %w", err)
	}
	maxID := cfg.scan.MaxFileBytes
	if maxID <= 0 {
		maxID = skillsdir.DefaultMaxFileBytes
	}
	name, identity, idPath, err := readIdentity(cfg.roots, maxID)
	if err != nil {
		return nil, err
	}
	skills := sc.Skills()
	cat, err := synthesize(name, identity, skills)
	if err != nil {
		return nil, err
	}
	info := cat.Agent()
	if len(info.Skills) != len(skills) {
		return nil, fmt.Errorf("open skill folders: internal error: %d skills became %d", len(skills), len(info.Skills))
	}
	// The scan's own reading of the metadata is exact; the attributes
	// round-trip through comma lists, which a trigger holding a comma
	// would not survive.
	for i, s := range skills {
		k := &info.Skills[i]
		k.Triggers, k.Inputs = s.Triggers, s.Inputs
		k.Tool, k.HasTool = s.Tool, s.HasTool
	}
	st, err := build(cat, info, cfg.roots[0])
	if err != nil {
		return nil, err
	}
	st.folder = &folderState{roots: cfg.roots, cat: sc, skills: skills, identity: identity, idPath: idPath}
	st.gen = gen
	return st, nil
}

// synthesize builds the body-less catalog of skill folders: plane z=0 is
// the identity, plane z=i+1 skill i (skills sorted by name, so the
// numbering is stable while the set of names is), labelled with its name,
// its description and its metadata as attributes and its links to other
// served skills as [[z=N]] links. Bodies stay on disk: spans are empty.
func synthesize(name, identity string, skills []*skillsdir.Skill) (*agentfile.Catalog, error) {
	z := make(map[string]int, len(skills))
	for i, s := range skills {
		z[s.Name] = i + 1
	}
	c := &agentfile.Catalog{
		Version: "1", Axis: "layer", Title: name, HasTitle: true,
		Metadata: map[string]string{}, MetadataLines: map[string]int{},
		Planes: make([]agentfile.Plane, 0, len(skills)+1),
	}
	c.Planes = append(c.Planes, agentfile.Plane{
		ZText: "0", Label: name, HasLabel: true,
		Attributes:  agentfile.Attrs{{Key: "kind", Value: "identity"}},
		Description: firstParagraph(identity),
	})
	for i, s := range skills {
		zi := float64(i + 1)
		attrs := agentfile.Attrs{}
		if len(s.Inputs) > 0 {
			attrs = append(attrs, agentfile.Attr{Key: "inputs", Value: export.FormatInputs(s.Inputs)})
		}
		attrs = append(attrs, agentfile.Attr{Key: "kind", Value: "skill"})
		if s.HasTool {
			attrs = append(attrs, agentfile.Attr{Key: "tool", Value: s.Tool})
		}
		if len(s.Triggers) > 0 {
			attrs = append(attrs, agentfile.Attr{Key: "triggers", Value: strings.Join(s.Triggers, ", ")})
		}
		var links []agentfile.Link
		for _, d := range s.Deps {
			if j, ok := z[d]; ok {
				links = append(links, agentfile.Link{SourceZ: zi, TargetZ: float64(j), Target: strconv.Itoa(j), TargetExists: true})
			}
		}
		c.Planes = append(c.Planes, agentfile.Plane{
			Z: zi, ZText: strconv.Itoa(i + 1), Label: s.Name, HasLabel: true,
			Attributes: attrs, Links: links, Description: s.Description,
		})
		c.Size += s.Bytes
	}
	c.SHA256 = fingerprint(name, identity, skills)
	// The catalog's z index is private to agentfile; its binary form
	// rebuilds it on decode. A few milliseconds at 10,000 skills.
	b, err := c.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("open skill folders: encoding the catalog: %w", err)
	}
	return agentfile.UnmarshalCatalogOwned(b)
}

// fingerprint is the catalog's content key: the agent's name and
// identity, then per skill its name, folder, whole frontmatter and every
// served file's path and stat signature. A write to any served file
// changes its signature, so the key changes with any served byte; a mere
// touch changes it too, which only costs a cache miss.
func fingerprint(name, identity string, skills []*skillsdir.Skill) string {
	h := sha256.New()
	str := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	str("agent3md skill folders 1")
	str(name)
	str(identity)
	for _, s := range skills {
		str(s.Name)
		str(s.Dir)
		fm, _ := json.Marshal(s.Frontmatter) // maps encode with sorted keys
		str(string(fm))
		for _, f := range s.Files {
			str(f.Path)
			for _, v := range f.Stamp() {
				var n [8]byte
				binary.LittleEndian.PutUint64(n[:], uint64(v))
				h.Write(n[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readIdentity reads the AGENT.md at the first root: its first "# "
// heading names the agent (else the folder's name does), and its text,
// without any YAML frontmatter, is the identity body. Without one, the
// identity is a short generated text naming the folders.
func readIdentity(roots []string, maxBytes int64) (name, body, path string, err error) {
	name = filepath.Base(roots[0])
	if name == "skills" { // ~/.claude/skills: "claude-skills" says more
		if p := strings.TrimPrefix(filepath.Base(filepath.Dir(roots[0])), "."); p != "" && p != "/" && p != "." {
			name = p + "-skills"
		}
	}
	p := filepath.Join(roots[0], AgentFileName)
	fi, serr := os.Lstat(p)
	if serr != nil || !fi.Mode().IsRegular() {
		return name, generatedIdentity(roots), "", nil
	}
	if fi.Size() > maxBytes {
		return "", "", "", fmt.Errorf("open skill folders: %s is %d bytes, more than the %d a served file may have; shorten it or raise the file size bound", p, fi.Size(), maxBytes)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", "", "", fmt.Errorf("open skill folders: reading the identity: %w", err)
	}
	text := string(agentfile.Normalize(b))
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if _, after, found := strings.Cut(rest, "\n---\n"); found {
			text = after
		}
	}
	text = strings.Trim(text, "\n")
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok && strings.TrimSpace(h) != "" {
			name = strings.TrimSpace(h)
			break
		}
	}
	return name, text, p, nil
}

func generatedIdentity(roots []string) string {
	var b strings.Builder
	b.WriteString("An agent made of the Agent Skills folders in ")
	for i, r := range roots {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r)
	}
	b.WriteString(". Route each request to the one skill whose description fits it, read that skill's SKILL.md, and follow it; read its other files only when it points to them.")
	return b.String()
}

// firstParagraph is the identity's first paragraph that is not a heading,
// whitespace collapsed, as the identity plane's description.
func firstParagraph(s string) string {
	for _, p := range strings.Split(s, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		return textclip.Runes(strings.Join(strings.Fields(p), " "), 280)
	}
	return ""
}

// folderBody reads plane p's body for a folder state: the identity from
// memory, a skill's SKILL.md body from disk, checked to come from the
// very entry the state was built from. A skill changed (or gone) since
// is errStale, so the view machinery re-scans or reports ErrStale.
func (st *state) folderBody(p int) (string, error) {
	f := st.folder
	if p == st.info.Identity {
		return f.identity, nil
	}
	i := st.byPlane[p]
	if i < 0 {
		return "", nil
	}
	s := f.skills[i]
	// Reads are bounded by the file size limit; a caller's cancellation
	// reaches view before and after.
	body, got, err := f.cat.Body(context.Background(), s.Name)
	if err != nil {
		if errors.Is(err, skillsdir.ErrNotFound) || errors.Is(err, skillsdir.ErrChanged) {
			return "", fmt.Errorf("skill %s: %v: %w", s.Name, err, errStale)
		}
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	if got != s {
		return "", fmt.Errorf("skill %s: %s changed since the scan: %w", s.Name, s.SkillMD(), errStale)
	}
	return trimBody(body), nil
}

// trimBody gives a SKILL.md body the shape of a 3md plane body: CRLF as
// LF, leading and trailing blank lines dropped.
func trimBody(s string) string {
	if strings.Contains(s, "\r") {
		s = string(agentfile.Normalize([]byte(s)))
	}
	s = strings.TrimRight(s, " \t\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}
