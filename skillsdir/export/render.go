package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// Rendered is a skill rendered as an Agent Skills SKILL.md plus its
// references/<dep>.md supporting files (docs/format.md §15). The bytes
// are deterministic: the same file renders to the same bytes.
type Rendered struct {
	Slug   string // the frontmatter name: a valid, unique Agent Skills name
	Text   []byte // the SKILL.md bytes
	SHA256 string // lowercase hex of Text
	// Frontmatter is the SKILL.md frontmatter as a YAML parser yields it:
	// "name" and "description" strings and a "metadata" map[string]any of
	// strings. It is what the skills extension's frontmatter field carries.
	Frontmatter map[string]any
	References  []Reference
}

// Reference is one supporting file of a rendered skill.
type Reference struct {
	Path   string // "references/<dep-slug>.md"
	Skill  string // the dependency's skill name
	Text   []byte
	SHA256 string
}

// Doc is an agent file as the renderer reads it: the catalog, its
// agent3md/1 reading, each skill's Agent Skills name, and how to find a
// skill by z and read a plane's body. Package loader builds one for each
// version of an open agent; the renderer holds nothing between calls.
type Doc struct {
	Catalog *agentfile.Catalog
	Agent   *agentfile.AgentInfo
	// Slugs holds each skill's Agent Skills name (AssignSlugs), parallel
	// to Agent.Skills.
	Slugs []string
	// SkillAt returns the index in Agent.Skills of the skill at z.
	SkillAt func(z float64) (int, bool)
	// Body returns the body of plane p (an index into Catalog.Planes).
	Body func(p int) (string, error)
}

// Render renders skill i (an index into Agent.Skills) as an Agent Skills
// SKILL.md with its references (docs/format.md §15). chain is the skill's
// resolve order, i first: each later skill gets one reference file.
//
// The frontmatter holds name (the skill's slug), description and metadata
// (label, z, triggers, inputs, tool, cost as strings; empty ones omitted);
// the body follows with each [[z=N]] / [[z=N|text]] link to a skill of the
// chain rewritten to [text](references/<slug>.md). Each reference holds
// that skill's body, its links pointing at sibling files (and at
// ../SKILL.md for skill i). Links to the identity, to missing planes and
// with non-integer targets are left as written.
func (d *Doc) Render(ctx context.Context, i int, chain []int) (*Rendered, error) {
	inChain := make(map[int]bool, len(chain))
	for _, j := range chain {
		inChain[j] = true
	}
	fm := d.frontmatter(i)
	body, err := d.Body(d.Agent.Skills[i].Plane)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeFrontmatter(&b, fm)
	if body = RemoveDescription(body); body != "" {
		b.WriteString(d.rewrite(body, i, inChain, "references/", "SKILL.md"))
		b.WriteByte('\n')
	}
	r := &Rendered{Slug: d.Slugs[i], Text: b.Bytes(), SHA256: sum(b.Bytes()), Frontmatter: fm.asMap()}
	for k, j := range chain[1:] {
		if k%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		dep, err := d.Body(d.Agent.Skills[j].Plane)
		if err != nil {
			return nil, err
		}
		text := []byte(d.rewrite(dep, i, inChain, "", "../SKILL.md") + "\n")
		r.References = append(r.References, Reference{
			Path:   "references/" + d.Slugs[j] + ".md",
			Skill:  d.Agent.Skills[j].Name,
			Text:   text,
			SHA256: sum(text),
		})
	}
	return r, nil
}

// Frontmatter returns skill i's SKILL.md frontmatter as a YAML parser
// yields it (Rendered.Frontmatter), without reading any body.
func (d *Doc) Frontmatter(i int) map[string]any { return d.frontmatter(i).asMap() }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Description returns skill i's SKILL.md description: the plane's
// description, else a sentence built from the triggers, else one naming
// the skill; whitespace collapsed, 1-1024 characters.
func (d *Doc) Description(i int) string {
	s := &d.Agent.Skills[i]
	desc := strings.Join(strings.Fields(clean(d.linkText(d.Catalog.Planes[s.Plane].Description))), " ")
	if desc == "" && len(s.Triggers) > 0 {
		desc = "Use when a request mentions " + strings.Join(s.Triggers, ", ") + "."
		desc = strings.Join(strings.Fields(clean(desc)), " ")
	}
	if desc == "" {
		desc = clean("The " + s.Name + " skill of the " + d.Agent.Name + " agent.")
	}
	return textclip.Runes(desc, skillmd.MaxDescription)
}

// linkText replaces the links in a description with their text, or the
// name of the skill they point at: a description is plain prose for a host
// to show, where [[z=N]] means nothing.
func (d *Doc) linkText(desc string) string {
	return plainLinks(desc, func(z float64) (string, bool) {
		if j, ok := d.SkillAt(z); ok {
			return d.Agent.Skills[j].Name, true
		}
		return "", false
	})
}

// plainLinks replaces each link in s with its text, else with the name
// skillName gives its target; a link to nothing named stays as written.
func plainLinks(s string, skillName func(z float64) (string, bool)) string {
	if !strings.Contains(s, "[[z=") {
		return s
	}
	var b strings.Builder
	rewriteLine(&b, s, func(target, text string, hasText bool) (string, bool) {
		if hasText && text != "" {
			return text, true
		}
		z, _ := agentfile.ParseNumber(target)
		return skillName(z)
	})
	return b.String()
}

// clean makes s valid UTF-8, so YAML parsers accept it.
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// rewrite turns body's dependency links into Markdown links: to a skill of
// the chain other than root -> prefix+<slug>.md, to root -> self. The link
// text is the link's own text when it has some, else the target's name.
// Links are found exactly as agentfile finds them, one line at a time.
func (d *Doc) rewrite(body string, root int, inChain map[int]bool, prefix, self string) string {
	if !strings.Contains(body, "[[z=") {
		return body
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		rewriteLine(&b, line, func(target, text string, hasText bool) (string, bool) {
			if !isDigits(target) {
				return "", false // not a dependency link (docs/format.md §11)
			}
			z, _ := agentfile.ParseNumber(target)
			j, ok := d.SkillAt(z)
			if !ok || !inChain[j] {
				return "", false
			}
			href := self
			if j != root {
				href = prefix + d.Slugs[j] + ".md"
			}
			if !hasText || text == "" {
				text = d.Agent.Skills[j].Name
			}
			return "[" + escapeLinkText(text) + "](" + href + ")", true
		})
	}
	return b.String()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// escapeLinkText backslash-escapes what would end or confuse a Markdown
// link text.
func escapeLinkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}
