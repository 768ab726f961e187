package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// Skills as resources (docs/protocol.md §9): every skill is an Agent
// Skills directory whose files the loader gives (Agent.SkillFiles,
// ReadSkillFile) — for an agent file its rendering, skill://<slug>/SKILL.md
// and skill://<slug>/references/<dep-slug>.md for each other skill of its
// resolve chain; for skill folders every file of the folder byte for byte,
// binary ones as base64 blobs — plus the skills-as-resources convention's
// skill://<slug>/_manifest and skill://prompt-xml, and the agent's own
// agent3md://identity and agent3md://manifest. URIs are looked up by key
// in the generation's catalog, never turned into paths.

// resourcesFeature serves resources/list, read, templates and, where the
// agent is watched, subscriptions.
var resourcesFeature = &feature{
	name:       "resources",
	capability: "resources",
	settings: func(s *server) map[string]any {
		if s.watching() {
			return map[string]any{"listChanged": true, "subscribe": true}
		}
		return map[string]any{}
	},
	methods: map[string]methodSpec{
		methodResourcesList:      {handle: (*server).resourcesList, legacy: true, modern: true, cached: true},
		methodResourcesRead:      {handle: (*server).resourcesRead, legacy: true, modern: true, cached: true, inline: inlineLoaded},
		methodResourcesTemplates: {handle: (*server).resourcesTemplates, legacy: true, modern: true, cached: true, inline: inlineLoaded},
		methodResourcesSubscribe: {handle: (*server).resourcesSubscribe, legacy: true, needs: "resources.subscribe"},
		methodResourcesUnsub:     {handle: (*server).resourcesUnsubscribe, legacy: true, needs: "resources.subscribe"},
	},
}

// resourceJSON is MCP's Resource.
type resourceJSON struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type resourcesListResult struct {
	modernFields
	Resources  []resourceJSON `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// resourcesList lists the agent's own resources first, then per skill its
// SKILL.md and _manifest, a page of skills at a time. Sizes are those of
// the exact bytes resources/read returns, so listing a page renders its
// skills (their digests are kept for the generation).
func (s *server) resourcesList(ctx context.Context, c *call) (any, error) {
	var p listParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	snap := v.agent.Snapshot()
	pg, err := pageOf(p.Cursor, cursorResources, contentFP(snap), "resource", snap.Len(), resourcesPageSkills)
	if err != nil {
		return nil, err
	}
	out := &resourcesListResult{Resources: make([]resourceJSON, 0, 2*(pg.end-pg.start)+3)}
	if pg.start == 0 {
		out.Resources = append(out.Resources,
			resourceJSON{URI: uriIdentity, Name: "identity", Title: agentTitle(v) + " identity", Description: "The agent's identity plane: who it is and how it works (also the server's instructions).", MimeType: mimeText},
		)
		if s.opts.Projection != nil { // readable only where cmd renders it
			out.Resources = append(out.Resources, resourceJSON{URI: uriManifest, Name: "manifest", Title: agentTitle(v) + " manifest", Description: "The agent3md/1 JSON projection of the agent: its skills, their inputs and dependencies.", MimeType: mimeJSON})
		}
		// Listed only when it fits an answer: a client that follows the
		// list must be able to read what it names.
		if xml, err := v.files.promptXML(ctx, v.agent, s.maxAnswerBytes()); err == nil {
			size := int64(len(xml))
			out.Resources = append(out.Resources, resourceJSON{URI: uriPromptXML, Name: "prompt-xml", Title: "Available skills", Description: "An <available_skills> block naming every skill and its SKILL.md, for a system prompt.", MimeType: mimeXML, Size: &size})
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for i := pg.start; i < pg.end; i++ {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		slug := snap.Slug(i)
		files, ok, err := s.listedFiles(ctx, c, v, slug, "resources/list")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		fm := snap.Frontmatter(i)
		md := files.list[0]
		size := md.Size
		res := resourceJSON{
			URI: files.uri(fileSkillMD), Name: slug, Title: snap.Skill(i).Name,
			Description: snap.Description(i), MimeType: mimeMarkdown, Size: &size,
		}
		if meta, ok := fm["metadata"]; ok {
			res.Meta = map[string]any{metaSkillsPref + "metadata": meta}
		}
		msize := int64(len(files.manifest))
		out.Resources = append(out.Resources, res, resourceJSON{
			URI: files.uri(fileManifest), Name: slug + "-manifest", Title: snap.Skill(i).Name + " file manifest",
			Description: "Every file of the skill with its size and SHA-256, to sync it and check what was read.",
			MimeType:    mimeJSON, Size: &msize,
		})
	}
	out.NextCursor = pg.next
	return out, nil
}

// agentTitle is the served agent's name.
func agentTitle(v *generation) string {
	if info := v.agent.Info(); info != nil && info.Name != "" {
		return info.Name
	}
	return "agent"
}

// contentFP binds cursors to the file's content.
func contentFP(snap loader.Snapshot) string {
	if cat := snap.Catalog(); cat != nil && len(cat.SHA256) >= 12 {
		return cat.SHA256[:12]
	}
	return "0"
}

// contentJSON is MCP's TextResourceContents or, with Blob set,
// BlobResourceContents (base64 of bytes that are not UTF-8 text).
type contentJSON struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// resourceBytes is what a read serves: the bytes, their type, and whether
// they go out as text or as a base64 blob.
type resourceBytes struct {
	data   []byte
	mime   string
	binary bool
}

func textResource(s, mime string) resourceBytes { return resourceBytes{data: []byte(s), mime: mime} }

type resourcesReadResult struct {
	modernFields
	Contents []contentJSON `json:"contents"`
}

type uriParams struct {
	URI string `json:"uri" param:"required" desc:", the resource's URI as a string"`
}

// resourcesRead serves one resource's exact bytes.
func (s *server) resourcesRead(ctx context.Context, c *call) (any, error) {
	var p uriParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	rb, err := s.readResourceBytes(ctx, v, p.URI)
	if err != nil {
		return nil, s.resourceFailure(c, p.URI, err)
	}
	n := len(rb.data)
	if rb.binary {
		n = base64.StdEncoding.EncodedLen(n)
	}
	if max := s.maxAnswerBytes(); n > max {
		return nil, errorf(codeInternalError, "Internal error: %s is %d bytes, more than the %d-byte answer bound (--max-answer-bytes); raise the bound to read it", textclip.Bytes(p.URI, 120), n, max)
	}
	out := contentJSON{URI: p.URI, MimeType: rb.mime}
	if rb.binary {
		b := base64.StdEncoding.EncodeToString(rb.data)
		out.Blob = &b
	} else {
		t := string(rb.data)
		out.Text = &t
	}
	return &resourcesReadResult{Contents: []contentJSON{out}}, nil
}

// errNoResource marks a URI that names nothing served.
var errNoResource = errors.New("no such resource")

// readResourceBytes returns a resource's bytes and MIME type. A skill's
// file is read through the loader, which serves only files of the
// generation's listing and only the bytes that listing's digests describe;
// the listing itself (which hashes every file of a folder) is not needed
// to read one file.
func (s *server) readResourceBytes(ctx context.Context, v *generation, uri string) (resourceBytes, error) {
	switch uri {
	case uriIdentity:
		body, err := v.agent.IdentityBody(ctx)
		return textResource(body, mimeText), err
	case uriManifest:
		if s.opts.Projection == nil {
			return resourceBytes{}, errNoResource
		}
		b, err := s.opts.Projection(ctx, v.agent)
		return resourceBytes{data: b, mime: mimeJSON}, err
	case uriPromptXML:
		b, err := v.files.promptXML(ctx, v.agent, s.maxAnswerBytes())
		return resourceBytes{data: b, mime: mimeXML}, err
	}
	slug, path, ok := splitSkillURI(uri)
	if !ok {
		return resourceBytes{}, errNoResource
	}
	switch path {
	case "": // skill://<slug> is the alias older clients read
		path = fileSkillMD
	case fileManifest:
		files, err := v.files.of(ctx, v.agent, slug)
		if err != nil {
			return resourceBytes{}, err
		}
		return resourceBytes{data: files.manifest, mime: mimeJSON}, nil
	}
	data, f, err := v.agent.ReadSkillFile(ctx, slug, path)
	if err != nil {
		return resourceBytes{}, err
	}
	return resourceBytes{data: data, mime: f.MIME, binary: !f.Text}, nil
}

// readResource is readResourceBytes as text and MIME type.
func (s *server) readResource(ctx context.Context, v *generation, uri string) (string, string, error) {
	rb, err := s.readResourceBytes(ctx, v, uri)
	return string(rb.data), rb.mime, err
}

// splitSkillURI splits skill://<slug>[/<path>] into slug and path. Only
// the shapes served are accepted: a valid slug, and a path of plain
// segments (no empty, "." or ".." segment, no backslash, no NUL).
func splitSkillURI(uri string) (slug, path string, ok bool) {
	rest, found := strings.CutPrefix(uri, schemeSkill)
	if !found || rest == "" {
		return "", "", false
	}
	slug, path, _ = strings.Cut(rest, "/")
	if !validSlug(slug) {
		return "", "", false
	}
	if path == "" {
		return slug, "", !strings.HasSuffix(rest, "/")
	}
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if strings.ContainsAny(seg, "?#") {
			return "", "", false
		}
		// A file name may need escapes in a URI ("my notes.md" is
		// my%20notes.md); what they decode to is checked as a name.
		dec, err := url.PathUnescape(seg)
		if err != nil || dec == "" || dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\\x00") {
			return "", "", false
		}
		segs[i] = dec
	}
	return slug, strings.Join(segs, "/"), true
}

// validSlug accepts Agent Skills names: 1–64 of [a-z0-9-].
func validSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-') {
			return false
		}
	}
	return true
}

// resourceFailure maps a read's failure to the error of the call's era:
// an unknown resource is -32002 in the legacy era and -32602 in
// 2026-07-28, both with data.uri; anything else is internal.
func (s *server) resourceFailure(c *call, uri string, err error) error {
	var unknown *loader.UnknownSkillError
	if errors.Is(err, errNoResource) || errors.Is(err, loader.ErrNoSkillFile) || errors.As(err, &unknown) {
		code := int64(codeResourceNotFound)
		if c.modern {
			code = codeInvalidParams
		}
		return errorData(code, "Resource not found: "+textclip.Bytes(uri, 200), map[string]any{"uri": textclip.Bytes(uri, 200)})
	}
	var we *wireError
	if errors.As(err, &we) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errorf(codeInternalError, "Internal error: reading %s: %v", textclip.Bytes(uri, 200), err)
}

// codeResourceNotFound is the legacy era's unknown-resource code.
const codeResourceNotFound = -32002

type templateJSON struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

type templatesResult struct {
	modernFields
	ResourceTemplates []templateJSON `json:"resourceTemplates"`
	NextCursor        string         `json:"nextCursor,omitempty"`
}

// resourceTemplates are the served templates: a skill's SKILL.md and any
// file of a skill, by the skill's Agent Skills name.
var resourceTemplates = []templateJSON{
	{URITemplate: "skill://{name}/SKILL.md", Name: "skill", Title: "A skill's SKILL.md", Description: "The SKILL.md of the skill called {name}.", MimeType: mimeMarkdown},
	{URITemplate: "skill://{name}/{+path}", Name: "skill-file", Title: "A file of a skill", Description: "A supporting file of the skill called {name}, such as references/<dependency>.md; its _manifest lists them."},
}

func (s *server) resourcesTemplates(ctx context.Context, c *call) (any, error) {
	var p listParams
	if err := bind(c, &p); err != nil {
		return nil, err
	}
	pg, err := pageOf(p.Cursor, cursorTemplates, "t", "template", len(resourceTemplates), len(resourceTemplates))
	if err != nil {
		return nil, err
	}
	return &templatesResult{ResourceTemplates: resourceTemplates[pg.start:pg.end]}, nil
}

// resourcesSubscribe records a subscription (legacy; declared only when
// the agent is watched). Any served URI may be subscribed to.
func (s *server) resourcesSubscribe(ctx context.Context, c *call) (any, error) {
	var p uriParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	if _, err := s.readResourceBytes(ctx, v, p.URI); err != nil {
		return nil, s.resourceFailure(c, p.URI, err)
	}
	if !c.sess.subscribe(p.URI) {
		return nil, errorf(codeInvalidParams, "Invalid params: this session already subscribes to %d resources, the most it may; unsubscribe from some first", maxSubscriptions)
	}
	return struct{}{}, nil
}

func (s *server) resourcesUnsubscribe(ctx context.Context, c *call) (any, error) {
	var p uriParams
	if err := bind(c, &p); err != nil {
		return nil, err
	}
	c.sess.unsubscribe(p.URI)
	return struct{}{}, nil
}
