package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/loader"
)

// skillFiles are the generation's skill directories' listings with digests,
// computed on first need and kept (a few hundred bytes a skill; the bytes
// themselves are read through the loader on each read, which serves only
// the generation listed).
type skillFiles struct {
	mu     sync.Mutex
	bySlug map[string]*fileSet
	xml    []byte
	xmlErr error // the block passes the answer bound
}

// fileSet is one skill's files, each with its size and digest, and its
// _manifest.
type fileSet struct {
	slug     string
	list     []loader.SkillFile // SKILL.md first
	manifest []byte
	total    int64
}

func (f *fileSet) uri(path string) string { return fileURI(f.slug, path) }

// maxKeptRenderings bounds the listings kept per generation.
const maxKeptRenderings = 256

// listedFiles returns slug's files for an entry of the list named list
// (resources/list, skills/list). A skill changed on disk since the load
// is left out (ok false), with a warning, until the reload the change
// brings, rather than failing the whole list; any other failure is the
// list's error.
func (s *server) listedFiles(ctx context.Context, c *call, v *generation, slug, list string) (f *fileSet, ok bool, err error) {
	f, err = v.files.of(ctx, v.agent, slug)
	if errors.Is(err, loader.ErrStale) {
		s.log.Warn("skill changed on disk, left out of "+list+" until the next reload", "skill", slug, "err", err)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.resourceFailure(c, schemeSkill+slug+"/"+fileSkillMD, err)
	}
	return f, true, nil
}

// of returns skill slug's files, listing them on first use.
func (sf *skillFiles) of(ctx context.Context, a *loader.Agent, slug string) (*fileSet, error) {
	sf.mu.Lock()
	f := sf.bySlug[slug]
	sf.mu.Unlock()
	if f != nil {
		return f, nil
	}
	list, err := a.SkillFiles(ctx, slug)
	if err != nil {
		return nil, err
	}
	f = newFileSet(slug, list)
	sf.mu.Lock()
	if sf.bySlug == nil {
		sf.bySlug = map[string]*fileSet{}
	}
	if len(sf.bySlug) >= maxKeptRenderings {
		for k := range sf.bySlug { // drop one: digests are cheap to redo
			delete(sf.bySlug, k)
			break
		}
	}
	sf.bySlug[slug] = f
	sf.mu.Unlock()
	return f, nil
}

func newFileSet(slug string, list []loader.SkillFile) *fileSet {
	f := &fileSet{slug: slug, list: list}
	for _, e := range list {
		f.total += e.Size
	}
	type mf struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
		Hash string `json:"hash"`
	}
	m := struct {
		Skill string `json:"skill"`
		Files []mf   `json:"files"`
	}{Skill: slug, Files: make([]mf, len(f.list))}
	for i, e := range f.list {
		m.Files[i] = mf{e.Path, e.Size, e.Digest}
	}
	f.manifest, _ = encodeResult(m)
	return f
}

// overLimits says why a skill is past the skills extension's per-skill
// limits, or "".
func (f *fileSet) overLimits() string {
	if len(f.list) > maxSkillFiles {
		return fmt.Sprintf("it has %d files, more than the %d a skill may have (its resolve chain is too long: split it)", len(f.list), maxSkillFiles)
	}
	if f.total > maxSkillBytes {
		return fmt.Sprintf("its files total %d bytes, more than the %d a skill may have (its resolve chain is too large: split it)", f.total, maxSkillBytes)
	}
	return ""
}

// promptXML renders the <available_skills> block once per generation, within
// max bytes.
func (sf *skillFiles) promptXML(ctx context.Context, a *loader.Agent, max int) ([]byte, error) {
	sf.mu.Lock()
	if sf.xml != nil || sf.xmlErr != nil {
		defer sf.mu.Unlock()
		return sf.xml, sf.xmlErr
	}
	sf.mu.Unlock()
	snap := a.Snapshot()
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for i := 0; i < snap.Len(); i++ {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		slug := snap.Slug(i)
		fmt.Fprintf(&b, "  <skill>\n    <name>%s</name>\n    <description>%s</description>\n    <location>%s</location>\n  </skill>\n",
			xmlText(slug), xmlText(snap.Description(i)), xmlText(schemeSkill+slug+"/"+fileSkillMD))
		if b.Len() > max {
			err := fmt.Errorf("the <available_skills> block passes the %d-byte answer bound (--max-answer-bytes) at skill %d of %d; list skills with resources/list or skills/list instead", max, i+1, snap.Len())
			sf.mu.Lock()
			sf.xmlErr = err // the version will not shrink: do not build it again
			sf.mu.Unlock()
			return nil, err
		}
	}
	b.WriteString("</available_skills>\n")
	out := []byte(b.String())
	sf.mu.Lock()
	sf.xml = out
	sf.mu.Unlock()
	return out, nil
}

// xmlText escapes s for XML character data, replacing the characters XML
// 1.0 does not allow at all (control characters but tab and line breaks,
// U+FFFE, U+FFFF), not even as references, with U+FFFD: one description
// holding a NUL or an escape would make the whole block unparsable.
func xmlText(s string) string {
	if strings.IndexFunc(s, badXMLChar) >= 0 {
		s = strings.Map(func(r rune) rune {
			if badXMLChar(r) {
				return '\uFFFD'
			}
			return r
		}, s)
	}
	return html.EscapeString(s)
}

const (
	schemeSkill    = "skill://"
	uriPromptXML   = "skill://prompt-xml"
	uriIdentity    = "agent3md://identity"
	uriManifest    = "agent3md://manifest"
	fileSkillMD    = "SKILL.md"
	fileManifest   = "_manifest"
	dirReferences  = "references"
	mimeMarkdown   = "text/markdown"
	mimeJSON       = "application/json"
	mimeXML        = "application/xml"
	mimeText       = "text/plain"
	mimeDirectory  = "inode/directory"
	metaSkillsPref = "io.modelcontextprotocol.skills/"

	// resourcesPageSkills is how many skills one resources/list page
	// covers (two resources each), skillsPageSize one skills/list page.
	resourcesPageSkills = 100
	skillsPageSize      = 50

	// The skills extension's per-skill limits.
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

// fileURI is the skill:// URI of a skill's file: each path segment
// escaped as a URI path needs (splitSkillURI undoes it).
func fileURI(slug, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return schemeSkill + slug + "/" + strings.Join(segs, "/")
}

func badXMLChar(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF
}
