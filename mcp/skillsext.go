package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// The skills extension, io.modelcontextprotocol/skills (docs/protocol.md
// §10): skills/list and skills/get describe each skill with its whole
// frontmatter and every file's digest and size, and
// resources/directory/read lists a skill directory's children. Digests
// are those of the bytes resources/read returns: both come from the same
// rendering (skillFiles). Legacy sessions get the same methods without
// the 2026-07-28 result fields.

const (
	extensionSkills   = "io.modelcontextprotocol/skills"
	directoryPageSize = 200
)

var skillsFeature = &feature{
	name:      "skills",
	extension: extensionSkills,
	settings:  func(*server) map[string]any { return map[string]any{"directoryRead": true} },
	methods: map[string]methodSpec{
		methodSkillsList:    {handle: (*server).skillsList, legacy: true, modern: true, cached: true},
		methodSkillsGet:     {handle: (*server).skillsGet, legacy: true, modern: true, cached: true, inline: inlineLoaded},
		methodDirectoryRead: {handle: (*server).directoryRead, legacy: true, modern: true},
	},
}

type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type skillJSON struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

type skillsListResult struct {
	modernFields
	Skills     []skillJSON `json:"skills"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

func skillEntry(snap loader.Snapshot, i int, f *fileSet) skillJSON {
	e := skillJSON{URI: f.uri(fileSkillMD), Frontmatter: snap.Frontmatter(i), Resources: make([]skillResource, len(f.list))}
	for k, fe := range f.list {
		e.Resources[k] = skillResource{URI: f.uri(fe.Path), Digest: fe.Digest, Size: fe.Size}
	}
	return e
}

// skillsList pages through the skills; a skill past the extension's
// limits is left out, with a warning on stderr, and so is one that changed
// on disk since the agent was loaded (a pinned folder agent refuses its
// files until the reload the change brings): a partial page until then,
// rather than no list at all.
func (s *server) skillsList(ctx context.Context, c *call) (any, error) {
	var p listParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	snap := v.agent.Snapshot()
	pg, err := pageOf(p.Cursor, cursorSkills, contentFP(snap), "skill", snap.Len(), skillsPageSize)
	if err != nil {
		return nil, err
	}
	out := &skillsListResult{Skills: make([]skillJSON, 0, pg.end-pg.start)}
	for i := pg.start; i < pg.end; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		slug := snap.Slug(i)
		f, ok, err := s.listedFiles(ctx, c, v, slug, "skills/list")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if why := f.overLimits(); why != "" {
			s.log.Warn("skill left out of skills/list", "skill", slug, "why", why)
			continue
		}
		out.Skills = append(out.Skills, skillEntry(snap, i, f))
	}
	out.NextCursor = pg.next
	return out, nil
}

type skillsGetResult struct {
	modernFields
	Skill skillJSON `json:"skill"`
}

// skillsGet answers for any served skill's SKILL.md URI; anything else is
// -32602 in both eras.
func (s *server) skillsGet(ctx context.Context, c *call) (any, error) {
	var p uriParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	notSkill := func() error {
		return errorData(codeInvalidParams, "No skill is served at "+textclip.Bytes(p.URI, 200)+": pass the uri of a skill's SKILL.md from skills/list", map[string]any{"uri": textclip.Bytes(p.URI, 200)})
	}
	slug, path, ok := splitSkillURI(p.URI)
	if !ok || path != fileSkillMD {
		return nil, notSkill()
	}
	snap := v.agent.Snapshot()
	i, ok := snap.SlugIndex(slug)
	if !ok {
		return nil, notSkill()
	}
	f, err := v.files.of(ctx, v.agent, slug)
	if err != nil {
		return nil, s.resourceFailure(c, p.URI, err)
	}
	if why := f.overLimits(); why != "" {
		return nil, errorData(codeInvalidParams, fmt.Sprintf("The skill at %s is not served through the skills extension: %s", p.URI, why), map[string]any{"uri": p.URI})
	}
	return &skillsGetResult{Skill: skillEntry(snap, i, f)}, nil
}

type directoryResult struct {
	modernFields
	Resources  []resourceJSON `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

type directoryParams struct {
	URI    string  `json:"uri" param:"required" desc:", the directory's URI as a string"`
	Cursor *string `json:"cursor"`
}

// directoryRead lists a skill directory's direct children, files and
// subdirectories (inode/directory), in the listing's order with each
// directory at its first file: for an agent file skill://<slug> holds
// SKILL.md and, when the skill has dependencies, references/, and
// skill://<slug>/references their files; for a folder, its real tree.
func (s *server) directoryRead(ctx context.Context, c *call) (any, error) {
	var p directoryParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	notDir := func() error {
		return errorData(codeInvalidParams, "No directory is served at "+textclip.Bytes(p.URI, 200)+": pass a skill's directory, skill://<name>, or a directory it lists", map[string]any{"uri": textclip.Bytes(p.URI, 200)})
	}
	slug, path, ok := splitSkillURI(p.URI)
	if !ok {
		return nil, notDir()
	}
	if _, ok := v.agent.Snapshot().SlugIndex(slug); !ok {
		return nil, notDir()
	}
	f, err := v.files.of(ctx, v.agent, slug)
	if err != nil {
		return nil, s.resourceFailure(c, p.URI, err)
	}
	children := f.children(path)
	if len(children) == 0 {
		return nil, notDir()
	}
	pg, err := pageOf(p.Cursor, cursorDirectory, contentFP(v.agent.Snapshot())+slug+path, "entry", len(children), directoryPageSize)
	if err != nil {
		return nil, err
	}
	return &directoryResult{Resources: children[pg.start:pg.end], NextCursor: pg.next}, nil
}

// children lists directory dir's direct entries ("" is the skill's
// root): its files, and each subdirectory once, where its first file is.
func (f *fileSet) children(dir string) []resourceJSON {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	var out []resourceJSON
	seen := map[string]bool{}
	for _, fe := range f.list {
		rest, ok := strings.CutPrefix(fe.Path, prefix)
		if !ok {
			continue
		}
		if sub, _, nested := strings.Cut(rest, "/"); nested {
			if !seen[sub] {
				seen[sub] = true
				out = append(out, resourceJSON{URI: f.uri(prefix + sub), Name: sub, MimeType: mimeDirectory})
			}
			continue
		}
		size := fe.Size
		out = append(out, resourceJSON{URI: f.uri(fe.Path), Name: rest, MimeType: fe.MIME, Size: &size})
	}
	return out
}
